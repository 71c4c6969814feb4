//! `shiplog import`: entries from a CHANGELOG.md, GitHub Releases JSON or a feed, written into
//! an org's folder; one line per file written or kept, then a summary line.

use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::Utc;
use shiplog::import::{self, changelog, Imported, Outcome, Skipped};
use shiplog::{Error, Problems};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Import each version of a Keep a Changelog file (`## [1.2.0] - 2026-03-01`).
    #[command(
        after_help = "Examples:\n  shiplog import changelog CHANGELOG.md --org acme\n  shiplog import changelog CHANGELOG.md --org acme --title \"Acme {version}\" --unreleased draft"
    )]
    Changelog {
        /// The changelog file.
        file: PathBuf,
        /// Each entry's title; `{version}` is the version.
        #[arg(long, value_name = "TEMPLATE", default_value = "Version {version}")]
        title: String,
        /// What to do with the `Unreleased` section.
        #[arg(long, value_enum, default_value = "skip")]
        unreleased: changelog::Unreleased,
        #[command(flatten)]
        common: Common,
    },
    /// Import GitHub releases, as `gh api repos/OWNER/REPO/releases --paginate` prints them.
    #[command(
        name = "github-releases",
        after_help = "FILE `-` reads standard input.\n\nExamples:\n  gh api repos/acme/app/releases --paginate > releases.json\n  shiplog import github-releases releases.json --org acme\n  gh api repos/acme/app/releases --paginate | shiplog import github-releases - --org acme"
    )]
    GithubReleases {
        /// The JSON file, or `-` for standard input.
        file: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Import the items of an RSS 2.0, Atom 1.0 or JSON Feed, from a file or an http(s) URL.
    #[command(
        after_help = "Examples:\n  shiplog import feed https://acme.example/changelog/rss --org acme\n  shiplog import feed feed.xml --org acme --dry-run\n  shiplog import feed https://acme.example/changelog/rss --org acme --download-images"
    )]
    Feed {
        /// The feed's file or http(s) URL.
        location: String,
        /// Download the images the entries show into each entry's folder (at most 10 MiB
        /// each) instead of keeping their addresses.
        #[arg(long)]
        download_images: bool,
        #[command(flatten)]
        common: Common,
    },
}

/// The flags every importer takes.
#[derive(clap::Args)]
pub struct Common {
    /// The organization the entries go to; its folder is made when it is new.
    #[arg(long, value_name = "SLUG")]
    org: String,
    /// Content folder: one sub-folder per organization.
    #[arg(long, value_name = "DIR", default_value = "content")]
    content: PathBuf,
    /// Overwrite entries whose files differ from what the source makes now.
    #[arg(long)]
    update: bool,
    /// Write nothing; print what would be written.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(command: Command) -> Result<(), Error> {
    let (read, common) = match command {
        Command::Changelog {
            file,
            title,
            unreleased,
            common,
        } => {
            let text = read_text(&file)?;
            let settings = changelog::Settings {
                title: &title,
                unreleased,
                today: Utc::now().date_naive(),
            };
            (changelog::read(&file, &text, &settings), common)
        }
        Command::GithubReleases { file, common } => {
            let text = read_text(&file)?;
            (import::releases::read(&file, &text), common)
        }
        Command::Feed {
            location,
            download_images,
            common,
        } => {
            let bytes = import::feed::fetch(&location)?;
            let images = download_images.then(import::images::Images::default);
            (
                import::feed::read(Path::new(&location), &bytes, images.as_ref()),
                common,
            )
        }
    };
    let (entries, skipped): (Vec<Imported>, Skipped) =
        read.map_err(|problems| Error::Invalid(Problems::new(problems)))?;
    let options = import::Options {
        content: &common.content,
        org: &common.org,
        update: common.update,
        dry_run: common.dry_run,
    };
    let report = import::write(&entries, skipped, &options)?;
    print(&report, common.dry_run);
    Ok(())
}

/// Reads a source file, or standard input for `-`.
fn read_text(path: &Path) -> Result<String, Error> {
    let read_error = |source| Error::Read {
        path: path.to_path_buf(),
        source,
    };
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(import::feed::MAX_FEED_BYTES)
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
        bytes
    } else {
        shiplog::text::read_limited(path, import::feed::MAX_FEED_BYTES).map_err(read_error)?
    };
    String::from_utf8(bytes).map_err(|e| {
        Error::Invalid(Problems::new(vec![shiplog::Problem::file(
            path,
            format!(
                "is not UTF-8 (byte {} is not)",
                e.utf8_error().valid_up_to()
            ),
        )]))
    })
}

/// One line per file added, updated or kept, the skipped items, then the summary line.
fn print(report: &import::Report, dry_run: bool) {
    if let Some(settings) = &report.new_org {
        eprintln!("created {}", settings.display());
    }
    for (path, outcome) in &report.files {
        let verb = match (outcome, dry_run) {
            (Outcome::Unchanged, _) => continue,
            (Outcome::Added, false) => "added",
            (Outcome::Added, true) => "would add",
            (Outcome::Updated, false) => "updated",
            (Outcome::Updated, true) => "would update",
            (Outcome::Kept, _) => "kept, though the source now differs (--update overwrites it):",
        };
        eprintln!("{verb} {}", path.display());
    }
    for skipped in &report.skipped {
        eprintln!("{skipped}");
    }
    eprintln!(
        "{}{} added, {} changed ({} updated, {} kept), {} unchanged, {} skipped",
        if dry_run {
            "dry run, nothing written: "
        } else {
            ""
        },
        report.count(Outcome::Added),
        report.count(Outcome::Updated) + report.count(Outcome::Kept),
        report.count(Outcome::Updated),
        report.count(Outcome::Kept),
        report.count(Outcome::Unchanged),
        report.skipped.len()
    );
}
