//! The one rule every text input obeys, whatever adapter parsed it (REST bodies and query
//! strings, MCP tool arguments, web forms, imported files): no NUL character (U+0000).
//! PostgreSQL's `text` cannot hold it (SQLite can), so text with one would be stored on
//! one engine, fail as a 500 on the other and stop `migrate-data` between them; it is
//! refused as 422 on both.

use serde_json::Value;

use crate::{Error, Result};

/// The refusal for `field`.
fn refused(field: &str) -> Error {
    Error::invalid(format!(
        "{field} contains a NUL character (U+0000), which text may not hold"
    ))
}

/// Refuses `value`, the text of `field`, when it holds a NUL.
pub fn refuse_nul(field: &str, value: &str) -> Result<()> {
    if value.contains('\0') {
        return Err(refused(field));
    }
    Ok(())
}

/// Refuses a JSON document with a NUL in any string or key, naming where (`slides[0].html`).
pub fn refuse_nul_in_json(value: &Value) -> Result<()> {
    fn walk(value: &Value, path: &mut String) -> Result<()> {
        match value {
            Value::String(s) if s.contains('\0') => {
                Err(refused(if path.is_empty() { "the body" } else { path }))
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    walk(item, path)?;
                    path.truncate(len);
                }
                Ok(())
            }
            Value::Object(map) => {
                for (key, item) in map {
                    if key.contains('\0') {
                        return Err(refused("a key of the body"));
                    }
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                    walk(item, path)?;
                    path.truncate(len);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    walk(value, &mut String::new())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_with_a_nul_is_refused_and_named() {
        assert!(refuse_nul("title", "plain text, even ü and \u{1}").is_ok());
        let err = refuse_nul("title", "a\0b").unwrap_err();
        assert_eq!(err.status(), 422);
        assert!(err.to_string().contains("title"), "{err}");
    }

    #[test]
    fn a_nul_anywhere_in_a_json_body_is_refused_with_its_path() {
        assert!(refuse_nul_in_json(&json!({"a": [1, "x", {"b": null}]})).is_ok());
        let err =
            refuse_nul_in_json(&json!({"slides": [{"html": "x"}, {"notes": "n\0"}]})).unwrap_err();
        assert!(err.to_string().contains("slides[1].notes"), "{err}");
        assert!(refuse_nul_in_json(&json!({"k\0": 1})).is_err());
        assert!(refuse_nul_in_json(&json!("\0")).is_err());
    }
}
