//! `shiplog keys`: the API keys of shiplog-api.

use std::path::PathBuf;

use shiplog::Error;

use super::write_stdout;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Make a random key for one organization: print it once and add its digest to the keys file.
    #[command(
        after_help = "The key is printed once on standard output and stored nowhere; the keys file keeps only its SHA-256.\n\nExample:\n  shiplog keys new --org acme --name ci-dashboard"
    )]
    New(NewArgs),
}

#[derive(clap::Args)]
pub struct NewArgs {
    /// The organization the key reads (a folder of the content folder).
    #[arg(long, value_name = "SLUG")]
    org: String,
    /// A name for the key, shown in the server's logs.
    #[arg(long, value_name = "NAME")]
    name: String,
    /// Keys file to add the key's digest to (created if missing).
    #[arg(long, value_name = "FILE", default_value = "api_keys.yaml")]
    keys: PathBuf,
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
}

pub fn run(command: Command) -> Result<(), Error> {
    match command {
        Command::New(args) => new(args),
    }
}

fn new(args: NewArgs) -> Result<(), Error> {
    let made = shiplog::keys::new_key(&args.keys, &args.content, &args.org, &args.name)?;
    write_stdout(format!("{}\n", made.key).as_bytes())?;
    let name = args.name.trim();
    let file = made.keys_file.display();
    if made.created {
        eprintln!(
            "created {file} with key `{name}` for organization `{}`",
            args.org
        );
    } else {
        eprintln!(
            "added key `{name}` for organization `{}` to {file}",
            args.org
        );
    }
    eprintln!("the key is shown only this once: store it now (the file keeps only its SHA-256)");
    Ok(())
}
