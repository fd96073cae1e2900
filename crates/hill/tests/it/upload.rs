//! Uploaded bot folders as an attacker writes them: every archive below is
//! refused with its reason, and nothing is left behind or written outside.

use koth_hill::upload::{unpack, Limits};
use std::io::Write;
use std::path::PathBuf;

fn scratch(label: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("koth-upload-{label}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One tar header and its data, written by hand: a hostile archive says what
/// no well-behaved tool writes.
fn entry(out: &mut Vec<u8>, name: &str, kind: u8, data: &[u8], link: &str) {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..107].copy_from_slice(b"0000755");
    h[108..115].copy_from_slice(b"0000000");
    h[116..123].copy_from_slice(b"0000000");
    let size = format!("{:011o}", data.len());
    h[124..135].copy_from_slice(size.as_bytes());
    h[136..147].copy_from_slice(b"00000000000");
    h[156] = kind;
    h[157..157 + link.len()].copy_from_slice(link.as_bytes());
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| b as u32).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
}

fn tar(entries: &[(&str, u8, &[u8], &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, kind, data, link) in entries {
        entry(&mut out, name, *kind, data, link);
    }
    out.extend_from_slice(&[0u8; 1024]);
    out
}

fn refused(archive: &[u8], limits: &Limits, says: &str) {
    let d = scratch("refused");
    let into = d.join("bot");
    let e = unpack(archive, &into, limits).unwrap_err();
    assert!(e.contains(says), "{e:?} does not say {says:?}");
    assert!(!into.exists(), "a refused upload left its folder");
    // Nothing was written beside the folder either.
    let beside: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
    assert!(beside.is_empty(), "{beside:?}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_plain_bot_folder_unpacks_with_its_executable_bits() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("plain");
    let a = tar(&[
        ("bot/", b'5', b"", ""),
        ("bot/run", b'0', b"#!/bin/sh\necho hi\n", ""),
        ("./bot/lib/x.py", b'0', b"x = 1\n", ""),
    ]);
    unpack(&a, &d.join("in"), &Limits::default()).unwrap();
    assert_eq!(
        std::fs::read_to_string(d.join("in/bot/lib/x.py")).unwrap(),
        "x = 1\n"
    );
    let mode = std::fs::metadata(d.join("in/bot/run"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111);
    // The same as a gzipped tar and as a zip.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&a).unwrap();
    unpack(&gz.finish().unwrap(), &d.join("gz"), &Limits::default()).unwrap();
    assert!(d.join("gz/bot/lib/x.py").is_file());
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
    z.start_file("bot/run", opts).unwrap();
    z.write_all(b"#!/bin/sh\n").unwrap();
    let zipped = z.finish().unwrap().into_inner();
    unpack(&zipped, &d.join("zip"), &Limits::default()).unwrap();
    let mode = std::fs::metadata(d.join("zip/bot/run"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn paths_out_of_the_folder_are_refused() {
    let l = Limits::default();
    refused(
        &tar(&[("../evil.py", b'0', b"x", "")]),
        &l,
        "leads out of the bot's folder",
    );
    refused(
        &tar(&[("a/../../evil.py", b'0', b"x", "")]),
        &l,
        "leads out",
    );
    refused(&tar(&[("/tmp/evil.py", b'0', b"x", "")]), &l, "leads out");
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    z.start_file("../../evil.py", zip::write::SimpleFileOptions::default())
        .unwrap();
    z.write_all(b"x").unwrap();
    refused(&z.finish().unwrap().into_inner(), &l, "leads out");
}

#[test]
fn links_and_special_files_are_refused() {
    let l = Limits::default();
    refused(
        &tar(&[("passwd", b'2', b"", "/etc/passwd")]),
        &l,
        "is a link",
    );
    refused(&tar(&[("hard", b'1', b"", "/etc/shadow")]), &l, "is a link");
    // A link first, then a file written "through" it: refused at the link.
    refused(
        &tar(&[("d", b'2', b"", "/tmp"), ("d/evil", b'0', b"x", "")]),
        &l,
        "is a link",
    );
    refused(&tar(&[("fifo", b'6', b"", "")]), &l, "special file");
    refused(&tar(&[("dev", b'3', b"", "")]), &l, "special file");
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    z.add_symlink("p", "/etc/passwd", zip::write::SimpleFileOptions::default())
        .unwrap();
    refused(&z.finish().unwrap().into_inner(), &l, "is a link");
}

#[test]
fn size_count_and_depth_are_bounded() {
    let small = Limits {
        bytes: 1000,
        files: 5,
        depth: 3,
    };
    refused(
        &tar(&[("big", b'0', &[7u8; 1001], "")]),
        &small,
        "more than 1000 bytes unpacked",
    );
    let many: Vec<(String, u8, &[u8], &str)> = (0..6)
        .map(|i| (format!("f{i}"), b'0', &b"x"[..], ""))
        .collect();
    let many: Vec<(&str, u8, &[u8], &str)> = many
        .iter()
        .map(|(n, k, d, l)| (n.as_str(), *k, *d, *l))
        .collect();
    refused(&tar(&many), &small, "more than 5 files");
    refused(&tar(&[("a/b/c/d", b'0', b"x", "")]), &small, "folders deep");
    // A gzip bomb stops at the limit, not at the end of the stream.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut bomb = Vec::new();
    entry(&mut bomb, "zeros", b'0', &vec![0u8; 4 << 20], "");
    gz.write_all(&bomb).unwrap();
    let packed = gz.finish().unwrap();
    assert!(packed.len() < 64 << 10);
    refused(
        &packed,
        &Limits {
            bytes: 1 << 20,
            ..Limits::default()
        },
        "more than 1 MiB unpacked",
    );
}

#[test]
fn names_twice_and_what_is_not_an_archive_are_refused() {
    let l = Limits::default();
    refused(
        &tar(&[("bot.py", b'0', b"x", ""), ("bot.py", b'0', b"y", "")]),
        &l,
        "named twice",
    );
    refused(
        b"print('a bot, not an archive')\n",
        &l,
        "not a tar, tar.gz or zip",
    );
    refused(&[0x1f, 0x8b, 1, 2, 3], &l, "not a readable tar archive");
}
