//! Helpers shared by the integration tests: fixture folders, running the real `shiplog`
//! binary, and reading what it wrote; [`server`] runs the servers.

mod server;

pub use server::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The build time every fixture build uses unless a test says otherwise.
pub const NOW: &str = "2026-11-21T00:00:00Z";

/// The folder of fixture `case` under `tests/fixtures/`.
pub fn fixture(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(case)
}

/// Runs `shiplog` with `args` in `cwd`.
pub fn shiplog(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shiplog"))
        .current_dir(cwd)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the shiplog binary runs")
}

/// A finished `shiplog generate` of a fixture into a fresh temporary folder.
pub struct Build {
    pub output: Output,
    pub dir: tempfile::TempDir,
}

impl Build {
    /// Builds fixture `case` (its `content/` and, if present, its `shiplog.yaml`) at `now`.
    pub fn fixture_at(case: &str, now: &str) -> Build {
        let dir = tempfile::tempdir().expect("temp dir");
        let public = dir.path().join("public");
        let output = shiplog(
            &fixture(case),
            &[
                "generate",
                "--content",
                "content",
                "--output",
                public.to_str().expect("utf-8 temp path"),
                "--now",
                now,
            ],
        );
        Build { output, dir }
    }

    /// Builds fixture `case` at [`NOW`] and asserts it succeeded.
    pub fn fixture(case: &str) -> Build {
        let build = Build::fixture_at(case, NOW);
        build.assert_success();
        build
    }

    pub fn assert_success(&self) {
        assert!(
            self.output.status.success(),
            "generate failed: {}",
            String::from_utf8_lossy(&self.output.stderr)
        );
    }

    /// The output folder.
    pub fn public(&self) -> PathBuf {
        self.dir.path().join("public")
    }

    /// A file of the output, as text.
    pub fn read(&self, relative: &str) -> String {
        let path = self.public().join(relative);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// A JSON file of the output.
    pub fn json(&self, relative: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(relative)).expect("valid JSON")
    }

    /// Whether a path exists in the output.
    pub fn has(&self, relative: &str) -> bool {
        self.public().join(relative).exists()
    }

    /// Every file of the output, as sorted relative paths.
    pub fn files(&self) -> Vec<String> {
        files_under(&self.public())
    }

    /// Checks `feed.json` file `relative` against the JSON Feed 1.1 schema (date-time
    /// formats enforced); panics naming the file and every violation.
    pub fn assert_json_feed_valid(&self, relative: &str) {
        static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
        let validator = VALIDATOR.get_or_init(|| {
            let path = fixture("../schema/jsonfeed-1.1.schema.json");
            let schema: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(path).expect("schema"))
                    .expect("JSON");
            jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .expect("valid schema")
        });
        let feed = self.json(relative);
        let errors: Vec<String> = validator
            .iter_errors(&feed)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{relative}: {errors:?}");
    }
}

/// The start of a PNG file of `width` × `height` pixels: enough for its size to be read.
pub fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend_from_slice(&width.to_be_bytes());
    png.extend_from_slice(&height.to_be_bytes());
    png.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    png
}

/// The ids of a JSON feed's items, in order.
pub fn item_ids(feed: &serde_json::Value) -> Vec<&str> {
    feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["id"].as_str().expect("id"))
        .collect()
}

/// Every file under `root`, as sorted `/`-separated relative paths.
pub fn files_under(root: &Path) -> Vec<String> {
    let mut files: Vec<String> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    files
}

/// Copies a fixture's folder into `to`, so a test can change it.
pub fn copy_tree(from: &Path, to: &Path) {
    for item in walkdir::WalkDir::new(from) {
        let item = item.expect("readable fixture");
        let target = to.join(item.path().strip_prefix(from).expect("under from"));
        if item.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("create dir");
        } else {
            std::fs::copy(item.path(), &target).expect("copy file");
        }
    }
}
