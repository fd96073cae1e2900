//! The page's connections, bounded: a visitor with no token cannot take the
//! descriptors the hill's bots need. At most [`ServerLimits::connections`]
//! connections are open at once, at most [`ServerLimits::per_address`] from one
//! address; one over either is closed as soon as it is accepted (it costs a
//! descriptor for a moment, never for long). The last
//! [`ServerLimits::reserved`] places are the authors': a connection that takes
//! one is answered only for requests with a known token (see `web.rs`). A
//! proxy the organiser names is held to no per-address cap: the clients behind
//! it are, request by request, by `X-Forwarded-For`.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// What the page's server holds at most at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    /// Open connections.
    pub connections: usize,
    /// Open connections from one address (and requests at once from one
    /// client behind a trusted proxy).
    pub per_address: usize,
    /// Of [`ServerLimits::connections`], the places kept for authors: taken
    /// only once the rest are, and answered only with a known token.
    pub reserved: usize,
    /// Live boards streaming (server-sent events); one over is answered 503.
    pub streams: usize,
    /// Uploads being received; one over is answered 503.
    pub uploads: usize,
}

impl ServerLimits {
    /// Limits that leave most of `open_files` descriptors to the hill's bots (a
    /// bot process takes about six) and its database: a quarter of them for
    /// connections, no more than 1024. One address may hold an eighth of them
    /// (a club behind one address still gets in; five addresses cannot fill
    /// the page), and an eighth is kept for authors.
    pub fn for_descriptors(open_files: u64) -> ServerLimits {
        ServerLimits::for_connections(((open_files / 4) as usize).clamp(16, 1024))
    }

    /// Limits for `connections` open at once, shared as
    /// [`ServerLimits::for_descriptors`] shares them.
    pub fn for_connections(connections: usize) -> ServerLimits {
        let connections = connections.max(16);
        ServerLimits {
            connections,
            per_address: (connections / 8).max(4),
            reserved: (connections / 8).max(2),
            streams: (connections / 2).max(4),
            uploads: 2,
        }
    }
}

/// Who is connected: the count overall and by address.
#[derive(Default)]
struct Counts {
    all: usize,
    by: HashMap<IpAddr, usize>,
}

/// A listener that keeps to [`ServerLimits`].
pub struct Bounded {
    inner: TcpListener,
    limits: ServerLimits,
    proxies: Vec<IpAddr>,
    counts: Arc<Mutex<Counts>>,
}

impl Bounded {
    /// `inner`, bounded by `limits`; connections from `proxies` are held to
    /// no per-address cap.
    pub fn new(inner: TcpListener, limits: ServerLimits, proxies: Vec<IpAddr>) -> Bounded {
        Bounded {
            inner,
            limits,
            proxies,
            counts: Default::default(),
        }
    }

    /// Takes a place for a connection from `ip`, or says none is left.
    fn admit(&self, ip: IpAddr) -> Option<Place> {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let mine = c.by.get(&ip).copied().unwrap_or(0);
        if c.all >= self.limits.connections
            || (mine >= self.limits.per_address && !self.proxies.contains(&ip))
        {
            return None;
        }
        let reserved = c.all >= self.limits.connections.saturating_sub(self.limits.reserved);
        c.all += 1;
        *c.by.entry(ip).or_default() += 1;
        Some(Place {
            ip,
            reserved,
            counts: self.counts.clone(),
        })
    }
}

/// How many connections are open now, read from elsewhere (`/metrics`).
#[derive(Clone)]
pub struct OpenCount(Arc<Mutex<Counts>>);

impl OpenCount {
    /// Connections open now.
    pub fn get(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).all
    }
}

impl Bounded {
    /// A handle on how many connections are open.
    pub fn open_count(&self) -> OpenCount {
        OpenCount(self.counts.clone())
    }
}

/// A connection's place, given back when it closes.
struct Place {
    ip: IpAddr,
    reserved: bool,
    counts: Arc<Mutex<Counts>>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        c.all = c.all.saturating_sub(1);
        if let Some(n) = c.by.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                c.by.remove(&self.ip);
            }
        }
    }
}

/// An admitted connection.
pub struct Conn {
    stream: TcpStream,
    place: Place,
}

impl Conn {
    /// It holds one of the places kept for authors.
    pub fn reserved(&self) -> bool {
        self.place.reserved
    }
}

impl Bounded {
    /// The next connection within the limits, and where it comes from.
    pub async fn accept(&mut self) -> (Conn, SocketAddr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => match self.admit(addr.ip()) {
                    Some(place) => {
                        let _ = stream.set_nodelay(true);
                        return (Conn { stream, place }, addr);
                    }
                    // Closed at once: over a limit.
                    None => drop(stream),
                },
                // Out of descriptors or the like: wait for some to be freed
                // rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_leave_most_descriptors_to_the_bots() {
        let l = ServerLimits::for_descriptors(1024);
        assert_eq!(l.connections, 256);
        assert!(l.per_address < l.connections && l.streams < l.connections);
        assert_eq!(ServerLimits::for_descriptors(1 << 20).connections, 1024);
        assert_eq!(ServerLimits::for_descriptors(20).connections, 16);
    }

    #[test]
    fn places_are_counted_and_given_back() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let b = Bounded::new(
                l,
                ServerLimits {
                    connections: 3,
                    per_address: 2,
                    reserved: 1,
                    streams: 1,
                    uploads: 1,
                },
                vec![],
            );
            let a: IpAddr = "127.0.0.1".parse().unwrap();
            let other: IpAddr = "127.0.0.2".parse().unwrap();
            let p1 = b.admit(a).unwrap();
            let _p2 = b.admit(a).unwrap();
            assert!(b.admit(a).is_none(), "per address");
            assert!(!p1.reserved);
            let p3 = b.admit(other).unwrap();
            assert!(p3.reserved, "the last place is the authors'");
            assert!(b.admit(other).is_none(), "overall");
            assert_eq!(b.open_count().get(), 3);
            drop(p1);
            assert_eq!(b.open_count().get(), 2);
            assert!(b.admit(a).is_some(), "given back");
        });
    }

    #[test]
    fn a_named_proxy_is_held_to_no_per_address_cap() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let proxy: IpAddr = "10.0.0.1".parse().unwrap();
            let limits = ServerLimits {
                connections: 8,
                per_address: 2,
                reserved: 2,
                streams: 1,
                uploads: 1,
            };
            let b = Bounded::new(l, limits, vec![proxy]);
            let places: Vec<_> = (0..8).map(|_| b.admit(proxy).unwrap()).collect();
            assert!(b.admit(proxy).is_none(), "the overall cap holds");
            assert_eq!(places.iter().filter(|p| p.reserved).count(), 2);
        });
    }
}
