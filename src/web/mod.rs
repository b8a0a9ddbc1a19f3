//! Pages and endpoints outside the REST API: health, sign-in, the API-key page, the deck
//! viewer.

pub mod health;
pub mod keys;
pub mod login;
pub mod page;
pub mod profile;
pub mod reference;
pub mod session;
pub mod share;
pub mod viewer;
