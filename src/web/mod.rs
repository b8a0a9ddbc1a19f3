//! Pages and endpoints outside the REST API: health, the home page (the person's decks),
//! sign-in, the API-key page, the deck viewer.

pub mod cards;
pub mod editor;
pub mod health;
pub mod home;
pub mod keys;
pub mod login;
pub mod page;
pub mod profile;
pub mod reference;
pub mod share;
pub mod viewer;
