//! Lectern's application core: the domain types, the validation rules, the services (use
//! cases) that REST handlers, MCP tools and admin commands all call, and the storage port
//! ([`store::Store`]) that each backend implements. No HTTP, no SQL, no browser here.

pub mod auth;
pub mod cpu;
pub mod css;
pub mod error;
pub mod events;
pub mod guard;
pub mod html;
pub mod ids;
pub mod secret;
pub mod time;

pub use error::{Error, Result};
pub mod deck;
pub mod params;
pub mod service;
pub mod store;
pub mod views;

pub use service::Lectern;
pub mod import;
pub mod layout;
pub mod media;
pub mod oauth;
pub mod rank;
pub mod revision;
pub mod slide;
pub mod text;
