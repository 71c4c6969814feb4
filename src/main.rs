//! `shiplog`: the command line. It parses flags and hands them to the handler of the command
//! (see `cli/`), which calls the library and turns its errors into messages and exit codes.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc rather than the system allocator: a build allocates many small strings on every
/// core at once, where glibc's allocator spent a quarter of the CPU time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::run(cli::Cli::parse())
}
