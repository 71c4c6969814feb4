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
    /// List the keys of the keys file: name, organization, rate limit and the start of the digest.
    List(FileArgs),
    /// Take a key out of the keys file; a running shiplog-api refuses it as soon as it sees the change.
    #[command(
        after_help = "Example:\n  shiplog keys revoke ci-dashboard\n  shiplog keys revoke ci-dashboard --digest 5e8848ab   # when two keys share the name"
    )]
    Revoke(RevokeArgs),
}

#[derive(clap::Args)]
pub struct FileArgs {
    /// Keys file.
    #[arg(long, value_name = "FILE", default_value = "api_keys.yaml")]
    keys: PathBuf,
}

#[derive(clap::Args)]
pub struct RevokeArgs {
    /// The key's name, as `shiplog keys list` shows it.
    name: String,
    /// The start of the key's digest, as `shiplog keys list` shows it: needed when several keys share the name.
    #[arg(long, value_name = "HEX")]
    digest: Option<String>,
    #[command(flatten)]
    file: FileArgs,
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
        Command::List(args) => list(args),
        Command::Revoke(args) => revoke(args),
    }
}

fn list(args: FileArgs) -> Result<(), Error> {
    let keys = shiplog::keys::Keys::load(&args.keys, true)?.unwrap_or_default();
    let mut rows = vec![[
        "NAME".to_string(),
        "ORG".to_string(),
        "PER MINUTE".to_string(),
        "SHA-256".to_string(),
    ]];
    for key in keys.as_slice() {
        rows.push([
            shiplog::text::printable(&key.name).into_owned(),
            key.org.clone(),
            key.rate_limit_per_minute.to_string(),
            format!("{}…", key.digest_start()),
        ]);
    }
    let widths: Vec<usize> = (0..4)
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &rows {
        for (column, cell) in row.iter().enumerate() {
            let pad = widths[column] - cell.chars().count();
            out.push_str(cell);
            if column < 3 {
                out.push_str(&" ".repeat(pad + 2));
            }
        }
        out.push('\n');
    }
    write_stdout(out.as_bytes())?;
    eprintln!("{} keys in {}", keys.as_slice().len(), args.keys.display());
    Ok(())
}

fn revoke(args: RevokeArgs) -> Result<(), Error> {
    let gone = shiplog::keys::revoke_key(&args.file.keys, &args.name, args.digest.as_deref())?;
    eprintln!(
        "revoked key `{}` of organization `{}` (sha256 {}…) in {}",
        shiplog::text::printable(&gone.name),
        gone.org,
        gone.digest_start(),
        args.file.keys.display()
    );
    Ok(())
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
