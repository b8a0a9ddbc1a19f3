//! Exports: the workers inside `lectern serve` that take export jobs from the database
//! (`Store::claim_export`), build the file (a self-contained ZIP presentation, a PDF
//! printed by headless Chromium from that same presentation, or a PowerPoint file, `pptx`),
//! store it (`files`) and mark the job completed or failed.
//! `network` decides which addresses the renderer may reach; `proxy` enforces it for
//! Chromium, `fetch` for the server's own downloads (MCP `upload_image` from a URL).

pub mod browser;
mod cdp;
pub mod fetch;
pub mod files;
pub mod network;
pub mod pdf;
pub mod pptx;
pub mod proxy;
pub mod snapshot;
pub mod worker;
pub mod zip;
