//! Tool arguments as the REST API would have received them: ids parsed like path ids,
//! paging and flags like query strings, the rest as the operation's JSON body, and the
//! preconditions (`if_revision`).

use lectern_core::Error;
use lectern_core::ids::IntegerId;
use lectern_core::params::{Paging, parse_bool};
use lectern_core::revision::Precondition;
use rmcp::model::JsonObject;
use serde_json::Value;

use super::MAX_SLIDES_PER_CALL;

/// The remaining arguments as the operation's body (`None` when there are none, like an
/// empty REST body).
pub(super) fn body(args: JsonObject) -> Option<Value> {
    (!args.is_empty()).then_some(Value::Object(args))
}

/// An argument as the text REST would have received in a path or query string.
fn raw(args: &JsonObject, name: &str) -> Option<String> {
    match args.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    }
}

/// A required id argument (integer, or its digits as a string), parsed like REST path ids.
pub(super) fn take_id<T: IntegerId>(args: &mut JsonObject, name: &str) -> Result<T, Error> {
    let value = raw(args, name).ok_or_else(|| Error::invalid(format!("{name} is required")))?;
    args.remove(name);
    T::parse_id("id", &value)
}

/// A required string argument.
pub(super) fn take_str(args: &mut JsonObject, name: &str) -> Result<String, Error> {
    match args.remove(name) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(Error::invalid(format!("{name} is required"))),
        Some(_) => Err(Error::invalid(format!("{name} must be a string"))),
    }
}

/// An optional string argument.
pub(super) fn take_opt_str(args: &mut JsonObject, name: &str) -> Result<Option<String>, Error> {
    match args.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(Error::invalid(format!("{name} must be a string"))),
    }
}

pub(super) fn paging(args: &JsonObject, limits: (u32, u32)) -> Result<Paging, Error> {
    Paging::parse(
        raw(args, "page").as_deref(),
        raw(args, "per_page").as_deref(),
        limits,
    )
}

pub(super) fn flag(args: &JsonObject, name: &str) -> Result<bool, Error> {
    parse_bool(name, raw(args, name).as_deref())
}

/// An optional positive integer argument (a revision number).
pub(super) fn take_revision(args: &mut JsonObject, name: &str) -> Result<Option<i64>, Error> {
    match args.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_i64().is_some_and(|r| r >= 1) => Ok(n.as_i64()),
        Some(_) => Err(Error::invalid(format!(
            "{name} must be an integer of at least 1"
        ))),
    }
}

/// `if_revision`: the write's precondition, like REST's `If-Match`.
pub(super) fn take_precondition(args: &mut JsonObject) -> Result<Option<Precondition>, Error> {
    Ok(take_revision(args, "if_revision")?.map(Precondition::Revision))
}

/// `slide_ids` of `get_slides`: 1 to [`MAX_SLIDES_PER_CALL`] unique strings.
pub(super) fn slide_id_list(args: &mut JsonObject) -> Result<Vec<String>, Error> {
    let invalid = || {
        Error::invalid(format!(
            "slide_ids must be an array of 1 to {MAX_SLIDES_PER_CALL} unique slide ids"
        ))
    };
    let Some(Value::Array(items)) = args.remove("slide_ids") else {
        return Err(invalid());
    };
    let mut ids: Vec<String> = Vec::new();
    for item in items {
        let Value::String(id) = item else {
            return Err(invalid());
        };
        if ids.contains(&id) {
            return Err(invalid());
        }
        ids.push(id);
    }
    if ids.is_empty() || ids.len() > MAX_SLIDES_PER_CALL {
        return Err(invalid());
    }
    Ok(ids)
}
