//! HTTP and archives for the hill's tests: what a contestant's client sends.

use std::io::{Read, Write};
use std::time::Duration;

/// A tar of `files`: (name, kind byte, bytes, link target), each 0644.
pub fn tar_of(files: &[(&str, u8, &[u8], &str)]) -> Vec<u8> {
    tar_with(files.iter().map(|(n, k, d, l)| (*n, *k, *d, *l, false)))
}

/// A tar of plain files: (name, bytes, executable).
pub fn tar_files(files: &[(&str, &[u8], bool)]) -> Vec<u8> {
    tar_with(files.iter().map(|(n, d, x)| (*n, b'0', *d, "", *x)))
}

fn tar_with<'a>(files: impl Iterator<Item = (&'a str, u8, &'a [u8], &'a str, bool)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, kind, data, link, exec) in files {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..107].copy_from_slice(if exec { b"0000755" } else { b"0000644" });
        h[108..115].copy_from_slice(b"0000000");
        h[116..123].copy_from_slice(b"0000000");
        h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
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
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// A multipart body of `fields` then, if given, `archive`: (boundary, body).
pub fn multipart(fields: &[(&str, &str)], archive: Option<&[u8]>) -> (String, Vec<u8>) {
    let boundary = "kothtestboundary7d1f";
    let mut body = Vec::new();
    for (k, v) in fields {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    if let Some(a) = archive {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"archive\"; filename=\"bot.tar\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes(),
        );
        body.extend_from_slice(a);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (boundary.to_string(), body)
}

/// POSTs a multipart form to the hill's page: (status, body).
pub fn post_form(
    addr: &str,
    path: &str,
    fields: &[(&str, &str)],
    archive: Option<&[u8]>,
) -> (u16, String) {
    let (boundary, body) = multipart(fields, archive);
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(600))).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    // A server may answer (413) before reading all of a body too big.
    let _ = s.write_all(&body);
    let mut resp = Vec::new();
    let _ = s.read_to_end(&mut resp);
    status_and_body(&String::from_utf8_lossy(&resp))
}

/// An HTTP response's status code and body.
pub fn status_and_body(resp: &str) -> (u16, String) {
    let code = resp
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = resp.split_once("\r\n\r\n").map_or("", |b| b.1);
    // A refusal is JSON ({"error", "status"}): its reason, once its status is
    // checked to be the response's.
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        if let Some(why) = v["error"].as_str() {
            assert_eq!(v["status"], code, "a refusal's status in its body: {body}");
            return (code, why.to_string());
        }
    }
    (code, body.to_string())
}

/// Sends `method path` with `headers` (each `Name: value`) and `body`: the
/// whole response, head and body.
pub fn send(addr: &str, method: &str, path: &str, headers: &[&str], body: &[u8]) -> String {
    send_from(
        None,
        addr,
        method,
        path,
        headers,
        body,
        Duration::from_secs(120),
    )
}

/// A connection to `addr` from the local address `from` (any of 127/8 on
/// loopback), within a second.
pub fn connect_from(from: std::net::IpAddr, addr: &str) -> std::io::Result<std::net::TcpStream> {
    let to: std::net::SocketAddr = addr.parse().expect("an address");
    let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    s.bind(&std::net::SocketAddr::new(from, 0).into())?;
    s.connect_timeout(&to.into(), Duration::from_secs(1))?;
    Ok(s.into())
}

/// [`send`] from the local address `from` (if given), waiting at most `wait`
/// for each read: the whole response, or what came before the wait ran out
/// (empty if the connection was refused or closed).
pub fn send_from(
    from: Option<std::net::IpAddr>,
    addr: &str,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &[u8],
    wait: Duration,
) -> String {
    let mut s = match from {
        Some(ip) => match connect_from(ip, addr) {
            Ok(s) => s,
            Err(_) => return String::new(),
        },
        None => std::net::TcpStream::connect(addr).unwrap(),
    };
    s.set_read_timeout(Some(wait)).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for h in headers {
        head += h;
        head += "\r\n";
    }
    head += "\r\n";
    // A server that closes the connection at once answers nothing.
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
    let mut resp = Vec::new();
    let _ = s.read_to_end(&mut resp);
    String::from_utf8_lossy(&resp).into_owned()
}

/// A response's header `name` (case folded), if it has one.
pub fn header_of(resp: &str, name: &str) -> Option<String> {
    let head = resp.split_once("\r\n\r\n").map_or(resp, |h| h.0);
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
    })
}

/// GETs `path`: the whole response.
pub fn http_get(addr: &str, path: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut resp = Vec::new();
    let _ = s.read_to_end(&mut resp);
    String::from_utf8_lossy(&resp).into_owned()
}

/// POSTs `token=TOKEN` as a form to `path` (the page's pause, resume and
/// remove): (status, body).
pub fn post_urlencoded(addr: &str, path: &str, token: &str) -> (u16, String) {
    let body = format!("token={token}");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut resp = Vec::new();
    let _ = s.read_to_end(&mut resp);
    status_and_body(&String::from_utf8_lossy(&resp))
}

/// GETs `path` with `token` in `Authorization: Bearer`: (status, body).
pub fn get_as(addr: &str, path: &str, token: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut resp = Vec::new();
    let _ = s.read_to_end(&mut resp);
    status_and_body(&String::from_utf8_lossy(&resp))
}
