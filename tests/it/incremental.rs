//! Rebuilding into the same output folder: only what changed is parsed, rendered and
//! written, and the result is always byte-identical to a cold build of the same content.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::support::{copy_tree, files_under, fixture, shiplog, NOW};

/// A site folder a test changes between builds: `content/` from the `incremental`
/// fixture, built into `public/`.
struct Site {
    dir: tempfile::TempDir,
}

impl Site {
    fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&fixture("incremental/content"), &dir.path().join("content"));
        Site { dir }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Runs `shiplog generate` at `now` with `extra` flags; returns its stderr and
    /// asserts it succeeded.
    fn generate(&self, now: &str, extra: &[&str]) -> String {
        let mut args = vec!["generate", "--now", now];
        args.extend(extra);
        let output = shiplog(self.dir.path(), &args);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "generate failed: {stderr}");
        stderr
    }

    /// Every output file with its bytes.
    fn output(&self) -> BTreeMap<String, Vec<u8>> {
        tree(&self.path("public"))
    }

    /// Every output file with its inode: a file rewritten gets a new one.
    fn inodes(&self) -> BTreeMap<String, u64> {
        let public = self.path("public");
        files_under(&public)
            .into_iter()
            .map(|file| {
                let inode = std::fs::metadata(public.join(&file)).unwrap().ino();
                (file, inode)
            })
            .collect()
    }

    /// Builds at `now` until the cache holds a stamp of every org's output folder, which
    /// the next build needs to keep an org as it is. A build waits only so long for the
    /// file system's clock to move past its last change: a later one stamps what is left.
    fn generate_until_stamped(&self, now: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !self.every_output_folder_stamped() {
            assert!(
                std::time::Instant::now() < deadline,
                "the output was never stamped"
            );
            self.generate(now, &[]);
        }
    }

    /// Whether the build cache holds a stamp of every org's output folder, which spares the
    /// next build listing it.
    fn every_output_folder_stamped(&self) -> bool {
        let Ok(bytes) = std::fs::read(self.path(".public.shiplog-cache.json")) else {
            return false;
        };
        let cache: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let orgs = cache["orgs"].as_object().unwrap();
        !orgs.is_empty() && orgs.values().all(|org| org["output_stamp"].is_string())
    }

    /// Asserts the output equals a cold build of the same site at `now`, in a fresh copy.
    fn assert_same_as_cold_build(&self, now: &str) {
        let cold = tempfile::tempdir().unwrap();
        for part in ["content", "shiplog.yaml", "themes"] {
            let from = self.path(part);
            if from.is_dir() {
                copy_tree(&from, &cold.path().join(part));
            } else if from.exists() {
                std::fs::copy(&from, cold.path().join(part)).unwrap();
            }
        }
        let output = shiplog(cold.path(), &["generate", "--now", now, "--no-cache"]);
        assert!(output.status.success());
        let expected = tree(&cold.path().join("public"));
        let actual = self.output();
        assert_eq!(
            actual.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "the files differ from a cold build's"
        );
        for (file, bytes) in &expected {
            assert!(actual[file] == *bytes, "{file} differs from a cold build's");
        }
    }
}

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    files_under(root)
        .into_iter()
        .map(|file| {
            let bytes = std::fs::read(root.join(&file)).unwrap();
            (file, bytes)
        })
        .collect()
}

/// The files of `after` that are new or rewritten since `before`.
fn rewritten(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> Vec<String> {
    after
        .iter()
        .filter(|(file, inode)| before.get(*file) != Some(inode))
        .map(|(file, _)| file.clone())
        .collect()
}

#[test]
fn editing_one_entry_rebuilds_its_org_and_rewrites_only_changed_files() {
    let site = Site::new();
    let first = site.generate(NOW, &[]);
    assert!(!first.contains("unchanged"), "{first}");
    site.generate_until_stamped(NOW);
    let before = site.inodes();

    let edited = std::fs::read_to_string(site.path("content/north/second-wind.md")).unwrap();
    site.write(
        "content/north/second-wind.md",
        &edited.replace("title: Second wind", "title: Second wind, edited"),
    );
    let second = site.generate(NOW, &[]);
    assert!(second.contains("(2 unchanged)"), "{second}");
    site.assert_same_as_cold_build(NOW);

    let changed = rewritten(&before, &site.inodes());
    assert!(
        changed.contains(&"north/changelog/second-wind/index.html".to_string()),
        "{changed:?}"
    );
    assert!(changed.contains(&"north/changelog/feed.json".to_string()));
    // The other orgs, and the files of North that do not show the title, stay as they were.
    for file in &changed {
        assert!(file.starts_with("north/"), "{file} was rewritten");
    }
    // First light's page links its neighbour by title, so it is rewritten; its Markdown
    // copy does not show the title and stays.
    assert!(changed.contains(&"north/changelog/first-light/index.html".to_string()));
    assert!(!changed.contains(&"north/changelog/first-light/index.md".to_string()));
    assert!(!changed.contains(&"_headers".to_string()));

    // Building again changes nothing at all.
    site.generate_until_stamped(NOW);
    let third = site.generate(NOW, &[]);
    assert!(third.contains("(3 unchanged)") && third.contains("(0 written, 0 removed)"));
}

#[test]
fn settings_and_templates_are_part_of_the_cache_key() {
    let site = Site::new();
    site.generate(NOW, &[]);

    site.write("shiplog.yaml", "org_url: https://{org}.example.com\n");
    let after_settings = site.generate(NOW, &[]);
    assert!(!after_settings.contains("unchanged"), "{after_settings}");
    site.assert_same_as_cold_build(NOW);

    site.write(
        "shiplog.yaml",
        "org_url: https://{org}.example.com\ntheme: plain\n",
    );
    site.write("themes/plain/style.css", "body { margin: 0 }\n");
    site.generate(NOW, &[]);
    site.write("themes/plain/style.css", "body { margin: 1px }\n");
    let after_template = site.generate(NOW, &[]);
    assert!(!after_template.contains("unchanged"), "{after_template}");
    assert!(
        std::fs::read_to_string(site.path("public/west/changelog/index.html"))
            .unwrap()
            .contains("margin: 1px")
    );
    site.assert_same_as_cold_build(NOW);
}

#[test]
fn the_build_time_decides_which_orgs_change() {
    let site = Site::new();
    site.generate_until_stamped(NOW);

    // South's scheduled entry comes out on December 1; nothing else changes.
    let december = "2026-12-02T00:00:00Z";
    let stderr = site.generate(december, &[]);
    assert!(stderr.contains("(2 unchanged)"), "{stderr}");
    assert!(site
        .path("public/south/changelog/holiday-sale/index.html")
        .exists());
    site.assert_same_as_cold_build(december);

    // Back before North's second entry: North loses it, and South its December one.
    site.generate_until_stamped(december);
    let october = "2026-10-05T00:00:00Z";
    let stderr = site.generate(october, &[]);
    assert!(stderr.contains("(1 unchanged)"), "{stderr}");
    assert!(!site.path("public/north/changelog/second-wind").exists());
    site.assert_same_as_cold_build(october);
}

#[test]
fn a_damaged_output_folder_is_repaired() {
    let site = Site::new();
    site.generate(NOW, &[]);
    std::fs::remove_file(site.path("public/west/changelog/only-entry/index.html")).unwrap();
    site.write("public/north/changelog/stray.html", "not built by shiplog");
    site.write("public/elsewhere/file.txt", "nor this");
    std::fs::create_dir(site.path("public/south/changelog/empty")).unwrap();
    site.generate(NOW, &[]);
    site.assert_same_as_cold_build(NOW);
    assert!(!site.path("public/elsewhere").exists());
    assert!(!site.path("public/south/changelog/empty").exists());
    // With that folder gone, every org's output folder can be stamped again.
    site.generate_until_stamped(NOW);
}

#[test]
fn a_stamped_output_folder_is_not_trusted_after_a_change() {
    let site = Site::new();
    site.generate_until_stamped(NOW);
    let entry = site.path("public/west/changelog/only-entry/index.html");
    let page = std::fs::read(&entry).unwrap();
    // Same size, other bytes, written in place.
    std::fs::write(&entry, page.to_ascii_uppercase()).unwrap();
    site.write(
        "public/south/changelog/holiday-sale/stray.html",
        "not built by shiplog",
    );
    std::fs::remove_file(site.path("public/north/changelog/feed.xml")).unwrap();
    let stderr = site.generate(NOW, &[]);
    assert!(!stderr.contains("unchanged"), "{stderr}");
    site.assert_same_as_cold_build(NOW);
}

#[test]
fn a_failed_rebuild_changes_nothing() {
    let site = Site::new();
    site.generate_until_stamped(NOW);
    let before = site.output();
    let inodes = site.inodes();

    site.write(
        "content/west/broken.md",
        "---\ntitle: [unclosed\n---\nBody.\n",
    );
    let failed = shiplog(site.dir.path(), &["generate", "--now", NOW]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stderr)
        .contains("content/west/broken.md:3:1: invalid YAML"));
    assert!(site.output() == before, "the output changed");
    assert_eq!(site.inodes(), inodes);

    std::fs::remove_file(site.path("content/west/broken.md")).unwrap();
    let stderr = site.generate(NOW, &[]);
    assert!(stderr.contains("(3 unchanged)"), "{stderr}");
}

#[test]
fn no_cache_rebuilds_everything_and_forgets_the_cache() {
    let site = Site::new();
    site.generate(NOW, &[]);
    let cache = site.path(".public.shiplog-cache.json");
    assert!(cache.exists());
    let stderr = site.generate(NOW, &["--no-cache"]);
    assert!(!stderr.contains("unchanged"), "{stderr}");
    assert!(stderr.contains("(0 written, 0 removed)"), "{stderr}");
    assert!(!cache.exists());
    site.assert_same_as_cold_build(NOW);
}

#[test]
fn a_link_in_the_output_folder_is_removed_and_what_it_leads_to_is_left() {
    let site = Site::new();
    site.generate(NOW, &[]);
    site.write("elsewhere/keep.txt", "not built by shiplog");
    std::os::unix::fs::symlink(site.path("elsewhere"), site.path("public/linked")).unwrap();
    site.generate(NOW, &[]);
    site.assert_same_as_cold_build(NOW);
    assert!(std::fs::symlink_metadata(site.path("public/linked")).is_err());
    assert_eq!(
        std::fs::read_to_string(site.path("elsewhere/keep.txt")).unwrap(),
        "not built by shiplog"
    );
}

/// Every file under `root` with its bytes, grouped by top-level name (an org, `_headers`).
fn tree_by_top(root: &Path) -> BTreeMap<String, BTreeMap<String, Vec<u8>>> {
    let mut tops: BTreeMap<String, BTreeMap<String, Vec<u8>>> = BTreeMap::new();
    for file in files_under(root) {
        let top = file.split('/').next().unwrap().to_string();
        let bytes = std::fs::read(root.join(&file)).unwrap();
        tops.entry(top).or_default().insert(file, bytes);
    }
    tops
}

#[test]
fn a_build_killed_at_any_point_leaves_the_old_tree_or_the_new_one_and_no_litter() {
    let work = tempfile::tempdir().unwrap();
    let site = work.path();
    // Version A, then version B, in which the first entry of every org has a new title: a
    // build that touches every org and leaves most of each org's pages as they were, so
    // switching org by org would take a while, and show a mix of orgs meanwhile.
    let write_version = |title: &str| {
        for org in 0..12 {
            for n in 0..30 {
                crate::support::write_entry(
                    &site.join(format!("content/org-{org:02}/e{n:02}.md")),
                    &format!(
                        "title: {}\ndate: 2025-11-{:02}\ntags: [news, t{}]\n",
                        if n == 0 {
                            title.to_string()
                        } else {
                            format!("Entry {n}")
                        },
                        n % 28 + 1,
                        n % 7
                    ),
                    "Text with a [link](https://example.com) and **bold** words.\n",
                );
            }
        }
    };
    let build = |output: &str| {
        let result = shiplog(site, &["generate", "--output", output, "--now", NOW, "-q"]);
        assert!(
            result.status.success(),
            "{}",
            String::from_utf8_lossy(&result.stderr)
        );
    };
    write_version("First");
    build("pristine");
    write_version("First, renamed");
    build("expected");
    let old = tree_by_top(&site.join("pristine"));
    let new = tree_by_top(&site.join("expected"));
    // What a reader sees: the output must be exactly the old tree or the new one. While the
    // build runs, the files that differ between the two tell (read fast enough to look
    // often); after it, the whole tree is compared.
    let flat = |tree: &BTreeMap<String, BTreeMap<String, Vec<u8>>>| -> BTreeMap<String, Vec<u8>> {
        tree.values().flat_map(|files| files.clone()).collect()
    };
    let (old_files, new_files) = (flat(&old), flat(&new));
    let differing: Vec<&String> = old_files
        .keys()
        .chain(new_files.keys())
        .filter(|file| old_files.get(*file) != new_files.get(*file))
        .collect();
    assert!(differing.len() > 12, "every org changes: {differing:?}");
    let look = |what: &str| -> bool {
        let mut seen = (0, 0);
        for file in &differing {
            let bytes = std::fs::read(site.join("public").join(file)).ok();
            if bytes.as_ref() == new_files.get(*file) {
                seen.1 += 1;
            } else {
                assert_eq!(
                    bytes.as_ref(),
                    old_files.get(*file),
                    "{what}: {file} is neither old nor new"
                );
                seen.0 += 1;
            }
        }
        assert!(
            seen.0 == 0 || seen.1 == 0,
            "{what}: a mix of the old tree ({} files) and the new one ({} files)",
            seen.0,
            seen.1
        );
        seen.1 > 0
    };
    let whole = |what: &str| -> bool {
        let now = tree_by_top(&site.join("public"));
        assert!(
            now == old || now == new,
            "{what}: neither the old tree nor the new one"
        );
        now == new
    };
    // Looks and a kill aimed at the commit: a build removes its cache file just before it
    // switches the output (the cache describes the output as it is). From then on the build
    // is stopped (SIGSTOP, waited for) every millisecond or so and the output read while it
    // stands still, as a reader would find it at that moment; at a random one of these stops
    // it is killed instead of continued.
    let cache = site.join(".public.shiplog-cache.json");
    let mut seed: u64 = 0x5eed;
    let mut random = |below: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % below
    };
    let (mut looks, mut switched) = (0, 0);
    for kill in 0..20 {
        if site.join("public").exists() {
            std::fs::remove_dir_all(site.join("public")).unwrap();
        }
        copy_tree(&site.join("pristine"), &site.join("public"));
        // Not a cache it can use: every org is built.
        std::fs::write(&cache, "{}").unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
            .current_dir(site)
            .args(["generate", "--now", NOW, "-q"])
            .spawn()
            .unwrap();
        let pid = child.id() as libc::pid_t;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while cache.exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "the build never committed"
            );
            std::thread::yield_now();
        }
        // Killed after a random part of the first 150 ms, in which a debug build switches the tree.
        let kill_after = std::time::Duration::from_millis(random(150));
        let mut ran = std::time::Duration::ZERO;
        for stop in 0.. {
            let slice = std::time::Duration::from_micros(random(2000));
            std::thread::sleep(slice);
            ran += slice;
            let mut status = 0;
            // SAFETY: signals to our own child, not reaped yet; `status` is valid for writes.
            let stopped = unsafe {
                libc::kill(pid, libc::SIGSTOP);
                libc::waitpid(pid, &mut status, libc::WUNTRACED) == pid && libc::WIFSTOPPED(status)
            };
            if !stopped {
                break; // It finished first.
            }
            looks += 1;
            look(&format!("run {kill}, stop {stop}"));
            let signal = if ran >= kill_after {
                libc::SIGKILL
            } else {
                libc::SIGCONT
            };
            // SAFETY: as above.
            unsafe { libc::kill(pid, signal) };
            if signal == libc::SIGKILL {
                break;
            }
        }
        let _ = child.wait();
        if whole(&format!("after run {kill}")) {
            switched += 1;
        }
    }
    // The next build completes the switch and leaves nothing beside the output.
    build("public");
    assert_eq!(tree_by_top(&site.join("public")), new);
    let litter: Vec<String> = std::fs::read_dir(site)
        .unwrap()
        .map(|item| item.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| {
            name.starts_with(".public.shiplog-new-") || name.starts_with(".public.shiplog-old-")
        })
        .collect();
    assert!(litter.is_empty(), "{litter:?}");
    eprintln!("{looks} looks during 20 commits; {switched} runs left the new tree, the others the old one");
}

#[test]
fn an_edit_of_two_orgs_keeps_every_unchanged_file() {
    let site = Site::new();
    site.generate(NOW, &[]);
    let (bytes_before, inodes_before) = (site.output(), site.inodes());
    for entry in [
        "content/north/first-light.md",
        "content/south/holiday-sale.md",
    ] {
        let text = std::fs::read_to_string(site.path(entry)).unwrap();
        site.write(entry, &format!("{text}\nOne more line.\n"));
    }
    site.generate(NOW, &[]);
    site.assert_same_as_cold_build(NOW);
    let (bytes_after, inodes_after) = (site.output(), site.inodes());
    let kept: Vec<&String> = bytes_before
        .keys()
        .filter(|file| bytes_after.get(*file) == bytes_before.get(*file))
        .collect();
    assert!(
        kept.iter().any(|file| file.starts_with("north/")),
        "{kept:?}"
    );
    for file in kept {
        assert_eq!(
            inodes_after[file], inodes_before[file],
            "{file} was rewritten"
        );
    }
}

#[test]
fn an_output_folder_that_is_a_link_stays_one() {
    let site = Site::new();
    std::fs::create_dir(site.path("served")).unwrap();
    std::os::unix::fs::symlink("served", site.path("public")).unwrap();
    site.generate(NOW, &[]);
    // Every org changes: with a real folder, the whole tree would be exchanged.
    site.write("shiplog.yaml", "org_url: https://{org}.elsewhere.example\n");
    site.generate(NOW, &[]);
    let link = std::fs::symlink_metadata(site.path("public")).unwrap();
    assert!(link.file_type().is_symlink(), "the link was replaced");
    assert!(
        std::fs::read_to_string(site.path("served/north/changelog/feed.xml"))
            .unwrap()
            .contains("north.elsewhere.example")
    );
    site.assert_same_as_cold_build(NOW);
}

#[test]
fn what_earlier_builds_left_is_removed_whatever_process_id_it_names() {
    let site = Site::new();
    site.generate(NOW, &[]);
    // Process 1 is always running: a build that only removed the leftovers of dead processes
    // kept these (a killed build in a container, whose id a later process reuses).
    site.write(".public.shiplog-new-1/acme/junk.html", "half a build");
    site.write(".public.shiplog-old-1/acme/old.html", "an old tree");
    site.write(".public.shiplog-cache.json.new-Ab12Cd", "half a cache");
    site.generate(NOW, &[]);
    for leftover in [
        ".public.shiplog-new-1",
        ".public.shiplog-old-1",
        ".public.shiplog-cache.json.new-Ab12Cd",
    ] {
        assert!(!site.path(leftover).exists(), "{leftover} is still there");
    }
    site.assert_same_as_cold_build(NOW);
}

#[test]
fn a_second_build_of_the_same_output_waits_for_the_first() {
    let site = Site::new();
    site.generate(NOW, &[]);
    // A build holds the lock of the output's folder from reading its cache to writing it.
    let lock = std::fs::File::open(site.path("")).unwrap();
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).unwrap();
    site.write(
        "content/west/late.md",
        "---\ntitle: Late\ndate: 2026-01-02\ntags: [x]\n---\nLate.\n",
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shiplog"))
        .current_dir(site.path(""))
        .args(["generate", "--now", NOW, "-q"])
        .spawn()
        .unwrap();
    // Waiting: blocked in the kernel's lock wait (it would have finished in milliseconds).
    let wchan = format!("/proc/{}/wchan", child.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !std::fs::read_to_string(&wchan).is_ok_and(|w| w.contains("lock")) {
        assert!(child.try_wait().unwrap().is_none(), "it did not wait");
        assert!(
            std::time::Instant::now() < deadline,
            "it never waited for the lock"
        );
        std::thread::yield_now();
    }
    assert!(!site.path("public/west/changelog/late/index.html").exists());
    drop(lock);
    assert!(child.wait().unwrap().success());
    assert!(site.path("public/west/changelog/late/index.html").exists());
    site.assert_same_as_cold_build(NOW);
}

#[test]
fn an_output_link_that_leads_nowhere_is_a_usage_error() {
    let site = Site::new();
    std::os::unix::fs::symlink("gone", site.path("public")).unwrap();
    let output = shiplog(site.path("").as_path(), &["generate", "--now", NOW]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is a link to a folder that cannot be reached"),
        "{stderr}"
    );
    assert!(!site.path("gone").exists());
}
