//! The account operation (interface 4.2).

use axum::Json;
use axum::extract::State;
use lectern_core::views::UserView;

use crate::api::responses::*;
use crate::api::{Envelope, data};
use crate::http::error::ApiError;
use crate::http::extract::Auth;
use crate::state::AppState;

/// `users_get`: the authenticated account (2.2).
#[utoipa::path(get, path = "/v1/user", operation_id = "users_get", tag = "account",
    responses((status = 200, description = "Success", body = Envelope<UserView>), Unauthorized, RateLimited),
    security(("bearer" = []), ("oauth2" = ["read"])))]
pub async fn users_get(
    State(state): State<AppState>,
    Auth(caller): Auth,
) -> Result<Json<Envelope<UserView>>, ApiError> {
    Ok(data(state.core.users_get(&caller).await?))
}
