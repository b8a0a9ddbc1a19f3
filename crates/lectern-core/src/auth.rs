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
    /// An API key: accepted for read and manage operations alike. `label` names it in the
    /// deck history.
    ApiKey { key_id: i64, label: String },
    /// An OAuth access token carrying the scopes it was granted; `grant_id` is the
    /// authorization it belongs to (refreshes keep it), `client` the client's name.
    OAuth {
        token_id: i64,
        grant_id: i64,
        client: String,
        scopes: Vec<Scope>,
    },
    /// A person signed in through `/login`, acting in the browser (web pages and the
    /// editor; CSRF-checked by the adapter): everything the account may do.
    Session,
}

/// Which adapter a call came through, when it is not told by the credential alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Channel {
    /// The REST API (or a web page).
    #[default]
    Rest,
    /// The MCP server; `client` is the name the MCP client gave in `initialize`, if any.
    Mcp { client: Option<String> },
}

/// An authenticated account acting through one credential.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: i64,
    pub username: String,
    /// The team the account belongs to, if any (`visibility: team` needs one).
    pub team_id: Option<i64>,
    pub credential: Credential,
    /// The adapter the call came through (the deck history names it).
    pub channel: Channel,
}

/// How a change reached the deck, as its history tells (`author.via`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    ApiKey,
    OAuth,
    Mcp,
    Web,
    Admin,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::ApiKey => "api_key",
            Via::OAuth => "oauth",
            Via::Mcp => "mcp",
            Via::Web => "web",
            Via::Admin => "admin",
        }
    }
}

/// Who made a change, as the deck history records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    pub user_id: i64,
    pub via: Via,
    /// The API key's label, the OAuth client's name or the MCP client's name; none for the
    /// web and admin.
    pub label: Option<String>,
    /// Names the credential (`key:<id>`, `grant:<id>`), so that "made through another
    /// credential" can be decided; none for the admin.
    pub credential: Option<String>,
}

impl Author {
    /// The operator acting for `user_id` (`lectern admin`).
    pub fn admin(user_id: i64) -> Author {
        Author {
            user_id,
            via: Via::Admin,
            label: None,
            credential: None,
        }
    }
}

/// The credential a caller acts through, as one value to compare: the account and its API
/// key, its OAuth grant (a refreshed access token keeps its grant, so a client that
/// refreshes keeps what it opened) or its web sign-in. What one credential opens (an MCP
/// session) is bound to it, and no other credential may use it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Principal {
    ApiKey { user_id: i64, key_id: i64 },
    OAuthGrant { user_id: i64, grant_id: i64 },
    Web { user_id: i64 },
}

impl Caller {
    /// The credential this caller acts through (see [`Principal`]).
    pub fn principal(&self) -> Principal {
        let user_id = self.user_id;
        match &self.credential {
            Credential::ApiKey { key_id, .. } => Principal::ApiKey {
                user_id,
                key_id: *key_id,
            },
            Credential::OAuth { grant_id, .. } => Principal::OAuthGrant {
                user_id,
                grant_id: *grant_id,
            },
            Credential::Session => Principal::Web { user_id },
        }
    }

    /// Who this caller is in a deck's history.
    pub fn author(&self) -> Author {
        let (via, label, credential) = match &self.credential {
            Credential::ApiKey { key_id, label } => (
                Via::ApiKey,
                Some(label.clone()),
                Some(format!("key:{key_id}")),
            ),
            Credential::OAuth {
                grant_id, client, ..
            } => (
                Via::OAuth,
                Some(client.clone()),
                Some(format!("grant:{grant_id}")),
            ),
            // The person in the browser: one credential per account.
            Credential::Session => (Via::Web, None, Some(format!("web:{}", self.user_id))),
        };
        match &self.channel {
            Channel::Mcp { client } => Author {
                user_id: self.user_id,
                via: Via::Mcp,
                label: client.clone().or(label),
                credential,
            },
            Channel::Rest => Author {
                user_id: self.user_id,
                via,
                label,
                credential,
            },
        }
    }

    /// Fails with 403 when the credential lacks `scope`. `manage` implies `read`.
    pub fn require(&self, scope: Scope) -> Result<()> {
        match &self.credential {
            Credential::ApiKey { .. } | Credential::Session => Ok(()),
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
            channel: Channel::Rest,
        }
    }

    #[test]
    fn api_keys_may_read_and_manage() {
        let c = caller(Credential::ApiKey {
            key_id: 1,
            label: "k".into(),
        });
        assert!(c.require(Scope::Read).is_ok());
        assert!(c.require(Scope::Manage).is_ok());
    }

    #[test]
    fn read_tokens_cannot_manage_and_manage_tokens_can_read() {
        let read = caller(Credential::OAuth {
            token_id: 1,
            grant_id: 1,
            client: "c".into(),
            scopes: vec![Scope::Read],
        });
        assert!(read.require(Scope::Read).is_ok());
        assert!(matches!(
            read.require(Scope::Manage),
            Err(Error::InsufficientScope(Scope::Manage))
        ));
        let manage = caller(Credential::OAuth {
            token_id: 2,
            grant_id: 1,
            client: "c".into(),
            scopes: vec![Scope::Manage],
        });
        assert!(manage.require(Scope::Read).is_ok());
    }

    #[test]
    fn authors_name_the_channel_and_the_credential() {
        let mut c = caller(Credential::ApiKey {
            key_id: 7,
            label: "laptop".into(),
        });
        let a = c.author();
        assert_eq!((a.via, a.label.as_deref()), (Via::ApiKey, Some("laptop")));
        assert_eq!(a.credential.as_deref(), Some("key:7"));
        c.channel = Channel::Mcp {
            client: Some("Claude".into()),
        };
        let a = c.author();
        assert_eq!((a.via, a.label.as_deref()), (Via::Mcp, Some("Claude")));
        assert_eq!(a.credential.as_deref(), Some("key:7"));
        let o = caller(Credential::OAuth {
            token_id: 3,
            grant_id: 9,
            client: "My tool".into(),
            scopes: vec![Scope::Manage],
        })
        .author();
        assert_eq!((o.via, o.label.as_deref()), (Via::OAuth, Some("My tool")));
        assert_eq!(o.credential.as_deref(), Some("grant:9"));
    }
}
