//! The integration tests: the real binaries on fixture folders under `tests/fixtures/`, and
//! real sockets to the servers. One test binary, so that the support module is linked once
//! and used whole.
#![allow(clippy::unwrap_used)] // a test fails by panicking

mod api;
mod api_hostile;
mod api_redis;
mod authoring;
mod generate;
mod hostile;
mod import;
mod incremental;
mod languages;
mod machines;
mod properties;
mod serve;
mod support;
mod theme;
