//! The launcher alone, for programs and tests that start sandboxed bots without
//! being a launcher themselves (see `koth_process::launcher`).

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    match args.split_first() {
        Some((first, rest)) if first == koth_process::launcher::ARG => {
            std::process::exit(koth_process::launcher::main(rest))
        }
        _ => {
            eprintln!("koth-launcher runs inside koth's sandboxes; it is not run by hand");
            std::process::exit(2);
        }
    }
}
