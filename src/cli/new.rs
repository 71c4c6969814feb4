//! `shiplog new`: writes a new entry (and the org's folder when it is new) and prints its path.

use std::path::PathBuf;

use chrono::Utc;
use shiplog::Error;

use super::write_stdout;

#[derive(clap::Args)]
pub struct Args {
    /// The organization's slug; its folder is made when it is new.
    org: String,
    /// The entry's title; the file is named after it.
    title: String,
    /// Comma-separated tags.
    #[arg(long, value_name = "TAGS", value_delimiter = ',')]
    tags: Vec<String>,
    /// Publication time: RFC 3339 or YYYY-MM-DD [default: now].
    #[arg(long, value_name = "DATE")]
    date: Option<String>,
    /// Make a folder `<id>/index.md` that can hold the entry's images.
    #[arg(long)]
    bundle: bool,
    /// Mark the entry as a draft.
    #[arg(long)]
    draft: bool,
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
}

pub fn run(args: Args) -> Result<(), Error> {
    let tags = args
        .tags
        .iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    let request = shiplog::scaffold::NewEntry {
        content: &args.content,
        org: &args.org,
        title: &args.title,
        tags,
        date: args.date.as_deref(),
        bundle: args.bundle,
        draft: args.draft,
    };
    let created = shiplog::scaffold::new_entry(&request, Utc::now())?;
    if let Some(settings) = &created.org_settings {
        eprintln!(
            "created organization `{}` with {}",
            args.org,
            settings.display()
        );
    }
    write_stdout(format!("{}\n", created.path.display()).as_bytes())
}
