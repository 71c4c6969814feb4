//! `shiplog generate` on hostile and strange content: every case under
//! `tests/fixtures/hostile/<case>/` is built by the real binary, and must end exactly as its
//! `expected.txt` says, never with a panic, a hang or a changed output folder on error.
//!
//! A case folder holds a content folder (and a `shiplog.yaml` where needed) and
//! `expected.txt`. Lines starting with `#` are comments; the first other line is the outcome:
//!
//! - `fails`: the following lines are exactly the problems reported, `path:line:column:
//!   message`, in order; the output folder must be left as it was.
//! - `builds`: the build succeeds and replaces the output folder; each following line is a
//!   check on it: `exists PATH`, `absent PATH`, `PATH contains TEXT`, `PATH lacks TEXT`,
//!   `PATH counts N TEXT` (TEXT is taken literally, to the end of the line) or `warns LINE`
//!   (a line of standard error).
//!
//! Inputs that cannot be committed as files (huge or deeply nested entries, symbolic links,
//! pipes, unreadable files, names that are not UTF-8) are made by [`make`] into the temporary
//! copy of the case folder before the build.

use std::fs;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::support::{copy_tree, files_under, fixture, NOW};

/// A build that takes longer than this is a hang (the slowest case, the 4 MB entry, takes a
/// few seconds in a debug build on a busy machine).
const BUILD_DEADLINE: Duration = Duration::from_secs(120);

/// What [`make`] did to a case's copy.
enum Made {
    /// The case is ready to build.
    Ready,
    /// The case must be built by a user other than root (who reads files of mode 000).
    AsNobody,
    /// The case cannot be tried on this machine, for the reason given.
    Skip(String),
}

/// The user and group id of `nobody`, who builds the unreadable cases when the tests run as
/// root.
const NOBODY: u32 = 65534;

/// Writes the generated part of case `name` into `dir` (its temporary copy), if it has one.
fn make(name: &str, dir: &Path) -> Made {
    let acme = dir.join("content/acme");
    let entry = |file: &str, front_matter: &str, body: &str| {
        write(
            &acme.join(file),
            format!("---\n{front_matter}date: 2026-11-01\ntags: [deep]\n---\n{body}"),
        )
    };
    match name {
        "four-megabyte-entry" => {
            let paragraph = "All work and no play makes a very long changelog entry. ".repeat(8);
            let mut body = String::with_capacity(4_200_000);
            // Just under the 4 MiB an entry file may hold, with its front matter.
            while body.len() < 4 * 1024 * 1024 - 1024 {
                body.push_str(&paragraph);
                body.push_str("\n\n");
            }
            body.push_str("The last paragraph.\n");
            entry("big.md", "title: Big\n", &body);
        }
        "a-megabyte-of-addresses" => {
            // Bare addresses of every kind on one line, each after a long run that the old
            // search for the next one scanned again and again.
            let addresses =
                "https://a.example/x www.b.example/y c@d.example (https://e.example/(f))))) ";
            let body = addresses.repeat(1024 * 1024 / addresses.len());
            entry("addresses.md", "title: Addresses\n", &format!("{body}\n"));
        }
        "links-that-expand-past-the-html-limit" => entry(
            "expand.md",
            "title: Expand\n",
            &format!("[a]: ./\n\n{}", "[a]\n".repeat(100_000)),
        ),
        "a-megabyte-of-local-links" => {
            let links = "[a](notes.txt) ![b](notes.txt) ";
            let body = links.repeat(1024 * 1024 / links.len());
            entry("links.md", "title: Links\n", &format!("{body}\n"));
            write(&acme.join("links/notes.txt"), "Notes.\n".into());
        }
        "nested-blockquotes-10000" => entry("deep.md", "title: Deep\n", &deep(">", " ", "end")),
        "nested-lists-10000" => entry("deep.md", "title: Deep\n", &deep("- ", "", "end")),
        "nested-html-10000" => entry(
            "deep.md",
            "title: Deep\n",
            &format!("{}end{}", "<div>".repeat(10_000), "</div>".repeat(10_000)),
        ),
        "nested-html-misnested-10000" => entry(
            "deep.md",
            "title: Deep\n",
            &format!("{}end", "<b><div></b>".repeat(10_000)),
        ),
        "nested-links-10000" => entry(
            "deep.md",
            "title: Deep\n",
            &format!("{}end{}", "[".repeat(10_000), "](x)".repeat(10_000)),
        ),
        "nested-emphasis-10000" => entry(
            "deep.md",
            "title: Deep\n",
            &format!("{}end{}", "*".repeat(10_000), "*".repeat(10_000)),
        ),
        "yaml-nested-10000" => write(
            &acme.join("deep.md"),
            format!(
                "---\ntitle: Deep\ndate: 2026-11-01\ntags: {}{}\n---\n",
                "[".repeat(10_000),
                "]".repeat(10_000)
            ),
        ),
        "org-tags-over-the-limit" => {
            for n in 0..32 {
                let tags: Vec<String> = (0..16).map(|k| format!("t{n:02}-{k:02}")).collect();
                write(
                    &acme.join(format!("e{n:02}.md")),
                    format!(
                        "---\ntitle: Entry {n}\ndate: 2026-11-01\ntags: [{}]\n---\nText.\n",
                        tags.join(", ")
                    ),
                );
            }
        }
        "tags-over-the-limit" => write(
            &acme.join("many.md"),
            format!(
                "---\ntitle: Many tags\ndate: 2026-11-01\ntags: [{}]\n---\nTagged.\n",
                (0..1000)
                    .map(|i| format!("t{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        "unknown-keys-40000" => entry(
            "keys.md",
            &(0..40_000)
                .map(|i| format!("k{i}: 1\n"))
                .collect::<String>(),
            "Keys.\n",
        ),
        "yaml-flow-nested-100000" => entry(
            "flow.md",
            &format!("x: {}{}\n", "[".repeat(100_000), "]".repeat(100_000)),
            "Flow.\n",
        ),
        "hundred-megabyte-entry" => {
            let path = acme.join("huge.md");
            write(
                &path,
                "---\ntitle: Huge\ndate: 2026-11-01\ntags: [big]\n---\n".into(),
            );
            // Sparse: the size is what counts, and nothing of it is read.
            let file = fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .expect("open");
            file.set_len(100 * 1024 * 1024).expect("grow");
        }
        "non-utf8-file-name" => {
            use std::os::unix::ffi::OsStrExt;
            let name = std::ffi::OsStr::from_bytes(b"caf\xE9.md");
            fs::copy(acme.join("ok.md"), acme.join(name)).expect("copy");
        }
        "symlink-entry-outside" => link("../../outside/secret.md", &acme.join("secret.md")),
        "symlink-folder-outside" => link("../../outside", &acme.join("more")),
        "symlink-org-outside" => link("../outside", &dir.join("content/evil")),
        "symlink-org-yaml-outside" => link("../../outside/_org.yaml", &acme.join("_org.yaml")),
        "symlink-folder-loop" => link(".", &acme.join("again")),
        "symlink-self-loop" => link("self.md", &acme.join("self.md")),
        "symlink-dangling" => link("gone.md", &acme.join("missing.md")),
        "symlink-inside-content" => link("../acme/ok.md", &dir.join("content/globex/shared.md")),
        "symlink-to-root" => link("/", &acme.join("link")),
        "symlink-asset-to-a-draft" => link("../beta/secret.md", &acme.join("leak.txt")),
        "symlink-entry-into-notes" => link("_notes/plan.md", &acme.join("plan.md")),
        "symlink-org-into-ignored-folder" => link("_drafts", &dir.join("content/leak")),
        "symlink-org-to-a-folder-inside-an-org" => link("b/secret", &dir.join("content/leak")),
        "fifo-entry" => fifo(&acme.join("pipe.md")),
        "fifo-org-yaml" => fifo(&acme.join("_org.yaml")),
        "unreadable-entry" | "unreadable-folder" => {
            let locked = acme.join(if name == "unreadable-entry" {
                "locked.md"
            } else {
                "locked"
            });
            fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).expect("chmod");
            if fs::read(&locked).is_ok() || fs::read_dir(&locked).is_ok() {
                // Root reads it anyway: build as another user if this machine can.
                let setpriv = Command::new("setpriv")
                    .arg("--version")
                    .stdout(Stdio::null())
                    .status();
                if !setpriv.is_ok_and(|s| s.success()) {
                    return Made::Skip(
                        "running as root, which reads mode 000, and setpriv is missing".into(),
                    );
                }
                return Made::AsNobody;
            }
        }
        _ => {}
    }
    Made::Ready
}

/// The cases [`make`] knows; each must have its folder with `expected.txt`.
const GENERATED: &[&str] = &[
    "four-megabyte-entry",
    "a-megabyte-of-addresses",
    "a-megabyte-of-local-links",
    "links-that-expand-past-the-html-limit",
    "nested-blockquotes-10000",
    "nested-lists-10000",
    "nested-html-10000",
    "nested-html-misnested-10000",
    "nested-links-10000",
    "nested-emphasis-10000",
    "yaml-nested-10000",
    "tags-over-the-limit",
    "org-tags-over-the-limit",
    "unknown-keys-40000",
    "yaml-flow-nested-100000",
    "hundred-megabyte-entry",
    "non-utf8-file-name",
    "symlink-entry-outside",
    "symlink-folder-outside",
    "symlink-org-outside",
    "symlink-org-yaml-outside",
    "symlink-folder-loop",
    "symlink-self-loop",
    "symlink-dangling",
    "symlink-inside-content",
    "symlink-to-root",
    "symlink-asset-to-a-draft",
    "symlink-entry-into-notes",
    "symlink-org-into-ignored-folder",
    "symlink-org-to-a-folder-inside-an-org",
    "fifo-entry",
    "fifo-org-yaml",
    "unreadable-entry",
    "unreadable-folder",
];

/// `prefix` 10,000 times over, then `text`: one line nested 10,000 deep.
fn deep(prefix: &str, separator: &str, text: &str) -> String {
    format!("{}{separator}{text}\n", prefix.repeat(10_000))
}

fn write(path: &Path, text: String) {
    fs::create_dir_all(path.parent().expect("in a folder")).expect("create folder");
    fs::write(path, text).expect("write");
}

fn link(target: &str, at: &Path) {
    fs::create_dir_all(at.parent().expect("in a folder")).expect("create folder");
    symlink(target, at).expect("symlink");
}

fn fifo(at: &Path) {
    let path = std::ffi::CString::new(at.as_os_str().as_encoded_bytes()).expect("no NUL");
    // SAFETY: `path` is a valid NUL-terminated string that outlives the call.
    let status = unsafe { libc::mkfifo(path.as_ptr(), 0o644) };
    assert_eq!(status, 0, "mkfifo {}", at.display());
}

/// What a case's `expected.txt` says.
enum Expected {
    Fails(Vec<String>),
    Builds(Vec<String>),
}

fn expected(case: &Path) -> Expected {
    let path = case.join("expected.txt");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string);
    match lines.next().as_deref() {
        Some("fails") => Expected::Fails(lines.collect()),
        Some("builds") => Expected::Builds(lines.collect()),
        other => panic!(
            "{}: outcome `{other:?}` is not fails or builds",
            path.display()
        ),
    }
}

/// The output folder as it was before a build: a file at the root and a page an org would
/// write, so that both a partial write and a replaced folder show.
fn seed_output(public: &Path) {
    write(&public.join("previous.txt"), "previous build\n".into());
    write(
        &public.join("acme/changelog/index.html"),
        "previous page\n".into(),
    );
}

/// Every file under `root` with its bytes.
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    files_under(root)
        .into_iter()
        .map(|file| {
            let bytes = fs::read(root.join(&file)).expect("read output");
            (file, bytes)
        })
        .collect()
}

/// `shiplog check` of the case in `dir` reports exactly the `problems` the build did.
fn check_agrees(dir: &Path, problems: &[String]) -> Result<(), String> {
    let output = Command::new(env!("CARGO_BIN_EXE_shiplog"))
        .current_dir(dir)
        .args(["check", "--content", "content"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("the shiplog binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reported: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("error:") && !l.contains(": warning: "))
        .collect();
    if output.status.code() != Some(1) || reported != problems {
        return Err(format!(
            "check disagrees with generate ({}):\n{stderr}",
            output.status
        ));
    }
    Ok(())
}

/// Builds case `name` and returns what went wrong, if anything.
fn run_case(name: &str) -> Result<(), String> {
    let source = fixture("hostile").join(name);
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = temp.path();
    copy_tree(&source, dir);
    fs::create_dir_all(dir.join("content")).expect("content folder");
    let made = make(name, dir);
    if let Made::Skip(reason) = &made {
        println!("{name}: skipped: {reason}");
        return Ok(());
    }
    let public = dir.join("public");
    seed_output(&public);
    let before = snapshot(&public);

    let stderr_path = dir.join("stderr.txt");
    let shiplog = env!("CARGO_BIN_EXE_shiplog");
    let mut command = Command::new(shiplog);
    if let Made::AsNobody = made {
        give_to_nobody(dir);
        let id = NOBODY.to_string();
        command = Command::new("setpriv");
        command.args([&format!("--reuid={id}"), &format!("--regid={id}")]);
        command.args(["--clear-groups", shiplog]);
    }
    let mut child = command
        .current_dir(dir)
        .args(["generate", "--content", "content", "--output", "public"])
        .args(["--now", NOW])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(fs::File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .expect("the shiplog binary runs");
    let Some(status) = crate::support::wait_with_deadline(&mut child, BUILD_DEADLINE) else {
        child.kill().ok();
        child.wait().ok();
        return Err(format!("no answer in {BUILD_DEADLINE:?}: it hangs"));
    };
    restore_permissions(dir);
    let stderr = String::from_utf8_lossy(&fs::read(&stderr_path).expect("stderr")).into_owned();
    if stderr.contains("panicked") || !matches!(status.code(), Some(0..=2)) {
        return Err(format!("crashed ({status}):\n{stderr}"));
    }

    match expected(&source) {
        Expected::Fails(problems) => {
            if status.code() != Some(1) {
                return Err(format!("expected exit status 1, got {status}:\n{stderr}"));
            }
            let reported: Vec<&str> = stderr
                .lines()
                .filter(|l| !l.starts_with("error:"))
                .collect();
            let plural = if problems.len() == 1 { "" } else { "s" };
            let summary = format!(
                "error: {} problem{plural} found; nothing was written\n",
                problems.len()
            );
            if reported != problems || !stderr.ends_with(&summary) {
                return Err(format!(
                    "problems differ\nexpected:\n{}\n{summary}reported:\n{stderr}",
                    problems.join("\n")
                ));
            }
            if snapshot(&public) != before {
                return Err("the output folder changed although the build failed".into());
            }
            if matches!(made, Made::Ready) {
                check_agrees(dir, &problems)?;
            }
            Ok(())
        }
        Expected::Builds(checks) => {
            if !status.success() {
                return Err(format!("expected success, got {status}:\n{stderr}"));
            }
            if public.join("previous.txt").exists() {
                return Err("the output folder still holds the previous build's file".into());
            }
            let failed: Vec<String> = checks
                .iter()
                .filter_map(|check| check_output(check, &public, &stderr).err())
                .collect();
            if failed.is_empty() {
                Ok(())
            } else {
                Err(failed.join("\n"))
            }
        }
    }
}

/// Makes `nobody` the owner of everything under `dir` (a fresh temporary folder).
fn give_to_nobody(dir: &Path) {
    for item in walkdir::WalkDir::new(dir) {
        let item = item.expect("walk the case");
        std::os::unix::fs::lchown(item.path(), Some(NOBODY), Some(NOBODY)).expect("chown");
    }
}

/// Gives back read permission to everything under `dir`, so the temporary folder can be
/// removed after an unreadable case.
fn restore_permissions(dir: &Path) {
    for item in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if !item.path_is_symlink() && item.metadata().is_ok_and(|m| m.mode() & 0o700 == 0) {
            fs::set_permissions(item.path(), fs::Permissions::from_mode(0o755)).ok();
        }
    }
}

/// Applies one check line of a `builds` case.
fn check_output(check: &str, public: &Path, stderr: &str) -> Result<(), String> {
    let read = |relative: &str| {
        fs::read_to_string(public.join(relative)).map_err(|e| format!("{check}: {relative}: {e}"))
    };
    if let Some(relative) = check.strip_prefix("exists ") {
        return public
            .join(relative)
            .exists()
            .then_some(())
            .ok_or_else(|| format!("{check}: not in the output"));
    }
    if let Some(relative) = check.strip_prefix("absent ") {
        return (!public.join(relative).exists())
            .then_some(())
            .ok_or_else(|| format!("{check}: it is in the output"));
    }
    if let Some(line) = check.strip_prefix("warns ") {
        return stderr
            .lines()
            .any(|l| l == line)
            .then_some(())
            .ok_or_else(|| format!("{check}: not in standard error:\n{stderr}"));
    }
    if let Some((relative, text)) = check.split_once(" contains ") {
        let file = read(relative)?;
        return file
            .contains(text)
            .then_some(())
            .ok_or_else(|| format!("{check}: not found in:\n{}", excerpt(&file)));
    }
    if let Some((relative, rest)) = check.split_once(" counts ") {
        let file = read(relative)?;
        let (count, text) = rest
            .split_once(' ')
            .and_then(|(n, text)| Some((n.parse::<usize>().ok()?, text)))
            .ok_or_else(|| format!("{check}: write `PATH counts N TEXT`"))?;
        let found = file.matches(text).count();
        return (found == count)
            .then_some(())
            .ok_or_else(|| format!("{check}: found {found} times"));
    }
    if let Some((relative, text)) = check.split_once(" lacks ") {
        let file = read(relative)?;
        return (!file.contains(text))
            .then_some(())
            .ok_or_else(|| format!("{check}: found in:\n{}", excerpt(&file)));
    }
    Err(format!("{check}: not a check this test knows"))
}

/// The start of a (possibly huge) output file, for a failure message.
fn excerpt(text: &str) -> &str {
    let end = text.char_indices().nth(2000).map_or(text.len(), |(i, _)| i);
    &text[..end]
}

#[test]
fn every_hostile_case_ends_as_expected() {
    let root = fixture("hostile");
    let mut cases: Vec<String> = fs::read_dir(&root)
        .expect("hostile fixtures")
        .map(|item| {
            item.expect("readable")
                .file_name()
                .into_string()
                .expect("UTF-8")
        })
        .collect();
    cases.sort();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    for generated in GENERATED {
        assert!(
            cases.iter().any(|c| c == generated),
            "generated case {generated} has no folder"
        );
    }

    // Builds run in parallel (they are separate processes); failures are collected so one
    // run shows them all.
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(why) = run_case(case) {
                        failures.lock().unwrap().push(format!("{case}: {why}"));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// The cases that cost seconds and gigabytes before there were limits, and those that took
/// minutes before every step was linear: each is now refused (exit 1) or built (exit 0)
/// within a small budget of time and memory (a debug build, on a busy machine).
#[test]
fn costly_inputs_are_refused_or_built_within_budget() {
    // Linear cases take 1-5 s here with the other tests running; the quadratic ones took 35 s and more.
    const SECONDS: f64 = 10.0;
    const MEMORY_KIB: i64 = 200 * 1024;
    for (name, exit) in [
        ("tags-over-the-limit", 1),
        ("unknown-keys-40000", 1),
        ("yaml-flow-nested-100000", 1),
        ("yaml-nested-10000", 1),
        ("hundred-megabyte-entry", 1),
        ("a-megabyte-of-addresses", 0),
        ("a-megabyte-of-local-links", 0),
        ("links-that-expand-past-the-html-limit", 1),
    ] {
        let temp = tempfile::tempdir().expect("temp dir");
        copy_tree(&fixture("hostile").join(name), temp.path());
        assert!(matches!(make(name, temp.path()), Made::Ready), "{name}");
        for command in ["check", "generate"] {
            let started = std::time::Instant::now();
            let child = Command::new(env!("CARGO_BIN_EXE_shiplog"))
                .current_dir(temp.path())
                .args([command, "--content", "content"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("the shiplog binary runs");
            let (status, peak_kib) = wait_with_usage(child, BUILD_DEADLINE);
            let seconds = started.elapsed().as_secs_f64();
            assert_eq!(status, Some(exit), "{name} {command}: exit status");
            assert!(seconds < SECONDS, "{name} {command}: {seconds:.2} s");
            assert!(peak_kib < MEMORY_KIB, "{name} {command}: {peak_kib} KiB");
        }
    }
}

/// Waits for `child` (killing it at `deadline`) and gives its exit code and peak resident
/// memory in KiB, polled so that a hung child is killed while still ours. The peak is the
/// child's own high-water mark (`VmHWM` of its memory map), sampled every 10 ms: wait4(2)'s
/// `ru_maxrss` is no use here, since Linux carries the spawning process's high-water mark
/// (this test binary's, hundreds of MB with the other tests running) across the child's
/// exec into it.
fn wait_with_usage(child: std::process::Child, deadline: Duration) -> (Option<i32>, i64) {
    let pid = child.id() as libc::pid_t;
    let until = std::time::Instant::now() + deadline;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut peak_kib = 0;
    loop {
        peak_kib = peak_kib.max(high_water_kib(pid).unwrap_or(0));
        // SAFETY: `status` and `usage` are valid for writes; `pid` is our unreaped child.
        let waited = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if waited == pid {
            break;
        }
        assert_eq!(waited, 0, "wait4");
        if std::time::Instant::now() >= until {
            // SAFETY: kill(2) on our own child, not reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, peak_kib)
}

/// The peak resident memory of process `pid` so far, in KiB (`VmHWM`), while it runs.
fn high_water_kib(pid: libc::pid_t) -> Option<i64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
