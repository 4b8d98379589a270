//! The connections of `awale serve`: how many may be open at once (in all and per client
//! address), how long a peer may take to send a request's headers or sit idle between
//! requests, and how long an answer may wait for a peer that does not read. A connection over
//! a cap gets a 503 with the JSON error, not silence. None of this needs the token: it bounds
//! what any peer that reaches the port can hold.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Sleep;

use super::session::lock;

/// The connection limits (flags of `awale serve`).
#[derive(Debug, Clone)]
pub struct ConnLimits {
    /// Connections open at once, from every client together (`--max-connections`).
    pub total: usize,
    /// Connections open at once from one client address (`--max-client-connections`).
    pub per_client: usize,
    /// Most time to send a request's headers, to start the next request on a kept-alive
    /// connection, or for a stalled write of an answer to move again (`--idle-timeout-ms`).
    pub idle: Duration,
}

/// Refusals being written at once at most; beyond it a connection over a cap is closed at once.
const REFUSALS: usize = 64;

/// Open connections, in all and by client address.
#[derive(Default)]
struct Counts {
    total: usize,
    by_client: HashMap<IpAddr, usize>,
}

/// One admitted connection: its place in the counts, given back when dropped.
struct Slot {
    counts: Arc<Mutex<Counts>>,
    client: IpAddr,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Slot({})", self.client)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut c = lock(&self.counts);
        c.total -= 1;
        if let Some(n) = c.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                c.by_client.remove(&self.client);
            }
        }
    }
}

/// A place for a connection from `client`, or the reason it gets none.
fn admit(counts: &Arc<Mutex<Counts>>, client: IpAddr, limits: &ConnLimits) -> Result<Slot, String> {
    let mut c = lock(counts);
    if c.total >= limits.total {
        return Err(format!(
            "the server has {} connections open, its limit (--max-connections); try again shortly",
            limits.total
        ));
    }
    let mine = c.by_client.get(&client).copied().unwrap_or(0);
    if mine >= limits.per_client {
        return Err(format!(
            "this client has {} connections open, the limit of one client (--max-client-connections); close some or reuse them",
            limits.per_client
        ));
    }
    c.total += 1;
    *c.by_client.entry(client).or_insert(0) += 1;
    Ok(Slot {
        counts: counts.clone(),
        client,
    })
}

/// Serves `router` on `listener` until the process stops, within `limits`.
pub async fn serve(listener: TcpListener, router: Router, limits: ConnLimits) -> io::Result<()> {
    let counts = Arc::new(Mutex::new(Counts::default()));
    let refusals = Arc::new(Semaphore::new(REFUSALS));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(_) => {
                // Out of file descriptors, or a connection reset before it was accepted: wait
                // a little (as axum's own loop does) rather than spin.
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let slot = match admit(&counts, peer.ip(), &limits) {
            Ok(slot) => slot,
            Err(reason) => {
                if let Ok(permit) = refusals.clone().try_acquire_owned() {
                    let idle = limits.idle;
                    tokio::spawn(async move {
                        let _permit = permit;
                        let _ = tokio::time::timeout(idle, refuse(stream, &reason)).await;
                    });
                }
                continue;
            }
        };
        let router = router.clone();
        let idle = limits.idle;
        tokio::spawn(async move {
            let _slot = slot;
            let _ = stream.set_nodelay(true);
            let service = hyper::service::service_fn(move |mut req| {
                req.extensions_mut().insert(ConnectInfo(peer));
                tower_service::Service::call(&mut router.clone(), req)
            });
            let io = TokioIo::new(WriteTimeout::new(stream, idle));
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(idle)
                .keep_alive(true)
                .serve_connection(io, service)
                .await;
        });
    }
}

/// Answers a connection over a cap: a 503 with the JSON error, then closes it.
async fn refuse(mut stream: TcpStream, reason: &str) {
    let body = serde_json::json!({ "error": reason }).to_string();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
        body.len()
    );
    if stream.write_all(head.as_bytes()).await.is_err()
        || stream.write_all(body.as_bytes()).await.is_err()
    {
        return;
    }
    let _ = stream.shutdown().await;
    // Read what the peer sent (briefly), so that closing does not reset the connection before
    // the peer has read the answer.
    let mut sink = [0u8; 4096];
    let mut left: usize = 64 * 1024;
    while left > 0 {
        match tokio::io::AsyncReadExt::read(&mut stream, &mut sink).await {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// A stream whose writes fail when they make no progress for `limit`: an answer to a peer that
/// does not read is dropped, with its connection, instead of holding both forever.
struct WriteTimeout<S> {
    inner: S,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> WriteTimeout<S> {
    fn new(inner: S, limit: Duration) -> Self {
        WriteTimeout {
            inner,
            limit,
            stalled: None,
        }
    }

    /// `poll` of a write: on Pending, the stall timer runs (started at the first Pending); on
    /// progress it stops; past the limit the write fails.
    fn timed<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(Pin<&mut S>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>>
    where
        S: Unpin,
    {
        match poll(Pin::new(&mut self.inner), cx) {
            Poll::Ready(r) => {
                self.stalled = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let limit = self.limit;
                let timer = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the peer did not read the answer",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteTimeout<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.timed(cx, |s, cx| s.poll_write(cx, buf))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.timed(cx, |s, cx| s.poll_flush(cx))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.timed(cx, |s, cx| s.poll_shutdown(cx))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.timed(cx, |s, cx| s.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_count_per_client_and_in_all_and_give_back_on_drop() {
        let counts = Arc::new(Mutex::new(Counts::default()));
        let limits = ConnLimits {
            total: 3,
            per_client: 2,
            idle: Duration::from_secs(1),
        };
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let a1 = admit(&counts, a, &limits).unwrap();
        let _a2 = admit(&counts, a, &limits).unwrap();
        assert!(admit(&counts, a, &limits)
            .unwrap_err()
            .contains("--max-client-connections"));
        let _b1 = admit(&counts, b, &limits).unwrap();
        assert!(admit(&counts, b, &limits)
            .unwrap_err()
            .contains("--max-connections"));
        drop(a1);
        let _a3 = admit(&counts, a, &limits).unwrap();
        assert_eq!(lock(&counts).total, 3);
    }
}
