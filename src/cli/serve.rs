//! `shiplog serve`: the preview server, its events printed on standard error.

use std::sync::Arc;

use shiplog::build::SourceArgs;
use shiplog::Error;

#[derive(clap::Args)]
pub struct Args {
    /// Port to listen on; 0 picks a free port.
    #[arg(long, value_name = "PORT", default_value_t = 8080)]
    port: u16,
    #[command(flatten)]
    sources: SourceArgs,
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
}

pub fn run(args: Args) -> Result<(), Error> {
    let settings = shiplog::serve::Settings {
        sources: args.sources.into(),
        bind: args.bind,
        port: args.port,
    };
    shiplog::serve::run(settings, Arc::new(|event| eprintln!("{event}")))
}
