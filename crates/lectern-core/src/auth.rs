//! Who is calling and what they may do. The HTTP and MCP adapters turn a bearer credential
//! into a [`Caller`] (see `service::accounts::authenticate`); every service starts with
//! `caller.require(Scope::..)`.

use crate::{Error, Result};

/// The two permission levels of the interface (section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// View presentations the user can access.
    Read,
    /// View, create, edit, share, trash.
    Manage,
}

impl Scope {
    /// The scope's name in OAuth requests.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Manage => "manage",
        }
    }

    /// The scope named `name`.
    pub fn parse(name: &str) -> Option<Scope> {
        match name {
            "read" => Some(Scope::Read),
            "manage" => Some(Scope::Manage),
            _ => None,
        }
    }
}

/// How the caller proved who they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// An API key: accepted for read and manage operations alike.
    ApiKey { key_id: i64 },
    /// An OAuth access token carrying the scopes it was granted.
    OAuth { token_id: i64, scopes: Vec<Scope> },
}

/// An authenticated account acting through one credential.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: i64,
    pub username: String,
    /// The team the account belongs to, if any (`visibility: team` needs one).
    pub team_id: Option<i64>,
    pub credential: Credential,
}

impl Caller {
    /// Fails with 403 when the credential lacks `scope`. `manage` implies `read`.
    pub fn require(&self, scope: Scope) -> Result<()> {
        match &self.credential {
            Credential::ApiKey { .. } => Ok(()),
            Credential::OAuth { scopes, .. } => {
                let ok = scopes.contains(&scope)
                    || (scope == Scope::Read && scopes.contains(&Scope::Manage));
                if ok {
                    Ok(())
                } else {
                    Err(Error::InsufficientScope(scope))
                }
            }
        }
    }
}

/// Which API a token is for (RFC 8707).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// The REST API under `/v1` (the default).
    Rest,
    /// The MCP server under `/mcp`.
    Mcp,
}

impl Resource {
    /// The resource's URI under `public_url`.
    pub fn uri(self, public_url: &str) -> String {
        match self {
            Resource::Rest => format!("{public_url}/v1"),
            Resource::Mcp => format!("{public_url}/mcp"),
        }
    }

    pub(crate) fn parse(uri: &str, public_url: &str) -> Option<Resource> {
        let uri = uri.trim_end_matches('/');
        [Resource::Rest, Resource::Mcp]
            .into_iter()
            .find(|r| r.uri(public_url) == uri)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(credential: Credential) -> Caller {
        Caller {
            user_id: 1,
            username: "u".into(),
            team_id: None,
            credential,
        }
    }

    #[test]
    fn api_keys_may_read_and_manage() {
        let c = caller(Credential::ApiKey { key_id: 1 });
        assert!(c.require(Scope::Read).is_ok());
        assert!(c.require(Scope::Manage).is_ok());
    }

    #[test]
    fn read_tokens_cannot_manage_and_manage_tokens_can_read() {
        let read = caller(Credential::OAuth {
            token_id: 1,
            scopes: vec![Scope::Read],
        });
        assert!(read.require(Scope::Read).is_ok());
        assert!(matches!(
            read.require(Scope::Manage),
            Err(Error::InsufficientScope(Scope::Manage))
        ));
        let manage = caller(Credential::OAuth {
            token_id: 2,
            scopes: vec![Scope::Manage],
        });
        assert!(manage.require(Scope::Read).is_ok());
    }
}
