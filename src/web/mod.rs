//! Pages and endpoints outside the REST API: health now; sign-in, keys and the viewer later.

pub mod health;
