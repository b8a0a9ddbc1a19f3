//! Dynamic client registration (RFC 7591): what a registration may say, and its errors.
//! Anyone may register, so every field is bounded and the endpoint is limited per client
//! address (`Lectern::register_public_client`).

use serde_json::Value;

use super::OAuthError;
use crate::guard::TooManyTries;

/// Largest registration body, in bytes.
pub const MAX_REGISTRATION_BYTES: usize = 8 * 1024;
/// Longest `client_name`, in characters.
pub const MAX_CLIENT_NAME_CHARS: usize = 100;
/// Most `redirect_uris`.
pub const MAX_REDIRECT_URIS: usize = 5;
/// Longest redirect URI, in bytes.
pub const MAX_REDIRECT_URI_BYTES: usize = 1000;
/// The name of a client that gives none.
pub const UNNAMED_CLIENT: &str = "Unnamed client";

/// A registration refused.
#[derive(Debug, Clone)]
pub enum RegisterError {
    /// 400 (`invalid_client_metadata`, `invalid_redirect_uri`) or 500 (`server_error`).
    Metadata(OAuthError),
    /// 429: too many registrations from the client's address.
    TooMany(TooManyTries),
}

/// A registered client, as the answer repeats it.
#[derive(Debug, Clone)]
pub struct Registered {
    pub client_id: String,
    pub client_name: String,
    pub redirect_uris: Vec<String>,
}

/// The metadata of a registration, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub client_name: String,
    pub redirect_uris: Vec<String>,
}

fn invalid(description: impl Into<String>) -> OAuthError {
    OAuthError::new("invalid_client_metadata", description)
}

impl Registration {
    /// Parses a registration body: a JSON object of at most [`MAX_REGISTRATION_BYTES`] with
    /// 1 to [`MAX_REDIRECT_URIS`] `redirect_uris` (strings of at most
    /// [`MAX_REDIRECT_URI_BYTES`]), an optional `client_name` of at most
    /// [`MAX_CLIENT_NAME_CHARS`] without control characters, and no
    /// `token_endpoint_auth_method` but `none`.
    pub fn parse(body: &[u8]) -> Result<Registration, OAuthError> {
        if body.len() > MAX_REGISTRATION_BYTES {
            return Err(invalid(format!(
                "the registration must be at most {MAX_REGISTRATION_BYTES} bytes"
            )));
        }
        let meta: Value =
            serde_json::from_slice(body).map_err(|_| invalid("the body must be a JSON object"))?;
        crate::text::refuse_nul_in_json(&meta).map_err(|e| invalid(e.to_string()))?;
        let Some(meta) = meta.as_object() else {
            return Err(invalid("the body must be a JSON object"));
        };
        let Some(list) = meta.get("redirect_uris").and_then(Value::as_array) else {
            return Err(OAuthError::new(
                "invalid_redirect_uri",
                "redirect_uris is required",
            ));
        };
        if list.is_empty() || list.len() > MAX_REDIRECT_URIS {
            return Err(OAuthError::new(
                "invalid_redirect_uri",
                format!("redirect_uris must hold 1 to {MAX_REDIRECT_URIS} URIs"),
            ));
        }
        let mut redirect_uris = Vec::with_capacity(list.len());
        for uri in list {
            match uri.as_str() {
                Some(s) if s.len() <= MAX_REDIRECT_URI_BYTES => redirect_uris.push(s.to_string()),
                Some(_) => {
                    return Err(OAuthError::new(
                        "invalid_redirect_uri",
                        format!("a redirect URI must be at most {MAX_REDIRECT_URI_BYTES} bytes"),
                    ));
                }
                None => {
                    return Err(OAuthError::new(
                        "invalid_redirect_uri",
                        "redirect_uris must be strings",
                    ));
                }
            }
        }
        match meta.get("token_endpoint_auth_method") {
            None | Some(Value::Null) => {}
            Some(Value::String(m)) if m == "none" => {}
            Some(_) => {
                return Err(invalid(
                    "only public clients (token_endpoint_auth_method \"none\") can register",
                ));
            }
        }
        let client_name = match meta.get("client_name") {
            None | Some(Value::Null) => UNNAMED_CLIENT.to_string(),
            Some(Value::String(name)) => {
                let name = name.trim();
                if name.chars().count() > MAX_CLIENT_NAME_CHARS {
                    return Err(invalid(format!(
                        "client_name must be at most {MAX_CLIENT_NAME_CHARS} characters"
                    )));
                }
                // Control characters and bidirectional overrides could make a name show
                // as another.
                let hidden = |c: char| {
                    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
                };
                if name.chars().any(hidden) {
                    return Err(invalid(
                        "client_name must not hold control or direction-changing characters",
                    ));
                }
                if name.is_empty() {
                    UNNAMED_CLIENT.to_string()
                } else {
                    name.to_string()
                }
            }
            Some(_) => return Err(invalid("client_name must be a string")),
        };
        Ok(Registration {
            client_name,
            redirect_uris,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Registration, &'static str> {
        Registration::parse(v.to_string().as_bytes()).map_err(|e| e.error)
    }

    #[test]
    fn registrations_are_bounded_in_every_field() {
        let ok = parse(json!({"client_name": " CLI ", "redirect_uris": ["http://127.0.0.1/cb"]}));
        assert_eq!(
            ok,
            Ok(Registration {
                client_name: "CLI".into(),
                redirect_uris: vec!["http://127.0.0.1/cb".into()],
            })
        );
        let unnamed = parse(json!({"redirect_uris": ["http://127.0.0.1/cb"]})).unwrap();
        assert_eq!(unnamed.client_name, UNNAMED_CLIENT);
        let uri = "http://127.0.0.1/cb";
        assert!(parse(json!({"client_name": "é".repeat(100), "redirect_uris": [uri]})).is_ok());
        assert_eq!(
            parse(json!({"client_name": "x".repeat(101), "redirect_uris": [uri]})),
            Err("invalid_client_metadata")
        );
        assert_eq!(
            parse(json!({"client_name": "a\u{202e}b\nc", "redirect_uris": [uri]})),
            Err("invalid_client_metadata")
        );
        assert_eq!(
            parse(json!({"redirect_uris": vec![uri; 6]})),
            Err("invalid_redirect_uri")
        );
        assert_eq!(
            parse(json!({"redirect_uris": []})),
            Err("invalid_redirect_uri")
        );
        let long = format!("http://127.0.0.1/{}", "x".repeat(1000));
        assert_eq!(
            parse(json!({"redirect_uris": [long]})),
            Err("invalid_redirect_uri")
        );
        assert_eq!(
            parse(json!({"redirect_uris": [5]})),
            Err("invalid_redirect_uri")
        );
        assert_eq!(
            parse(
                json!({"redirect_uris": [uri], "token_endpoint_auth_method": "client_secret_basic"})
            ),
            Err("invalid_client_metadata")
        );
        assert_eq!(parse(json!([1])), Err("invalid_client_metadata"));
        let big = json!({"redirect_uris": [uri], "logo_uri": "x".repeat(9000)});
        assert_eq!(parse(big), Err("invalid_client_metadata"));
    }
}
