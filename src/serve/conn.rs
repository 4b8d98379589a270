//! The connections of `awale serve`: how many may be open at once (in all and per client
//! address), how long a peer may take to send a request's headers or sit idle between
//! requests, and how long an answer may wait for a peer that does not read. A connection over
//! a cap gets a 503 with the JSON error, not silence. None of this needs the token: it bounds
//! what any peer that reaches the port can hold.
//!
//! Clients are counted as networks hand out addresses ([`client_of`]): an IPv6 client by its
//! /64. At `--max-connections`, a connection of the client holding the most that waits for its
//! next request (or is still sending its first) is closed to make room for a client holding
//! fewer, as games are dropped: closed at once, and the newcomer is served only once it is gone,
//! so that the connections served never pass the cap. The framework's own refusals (a header
//! block over [`MAX_HEAD`], a path too long, a request that is no HTTP) are rewritten on their
//! way out as ours are: JSON, with the security headers. A client that speaks HTTP/2 with prior
//! knowledge gets HTTP/2's own refusal ([`Http2Refusal`]); a request followed by a half-close
//! is answered.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, Notify, Semaphore};
use tokio::time::Sleep;

use super::guard::SECURITY_HEADERS;
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
/// Longest time a refusal is kept open (its 503 written, what the peer sent read and dropped
/// so that closing does not reset the connection before the peer reads the answer), or the
/// idle time when shorter: a refused connection is not one the server keeps.
const REFUSAL_TIME: Duration = Duration::from_secs(1);
/// Most bytes of a request's start line and headers (more: 431), and of what the connection
/// buffers of a body as it reads it or of an answer as it writes it.
pub(super) const MAX_HEAD: usize = 64 * 1024;

/// The client an address belongs to, as networks hand out addresses: an IPv4 address is one
/// client, an IPv6 address its /64 (a host or a site gets a whole /64 to choose from), an IPv4
/// address written as IPv6 (`::ffff:a.b.c.d`) that IPv4 address. Loopback addresses are each a
/// client of their own (docs/play.md says why): they are this machine's.
///
/// ```ignore
/// assert_eq!(client_of("2001:db8::1".parse()?), client_of("2001:db8::ffff:2".parse()?));
/// ```
pub(super) fn client_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return IpAddr::V4(v4);
            }
            if v6.is_loopback() {
                return ip;
            }
            IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !(u64::MAX as u128)))
        }
    }
}

/// Open connections, in all and by client address, each with what makes room for another.
#[derive(Default)]
struct Counts {
    total: usize,
    by_client: HashMap<IpAddr, usize>,
    open: HashMap<u64, Open>,
    next: u64,
}

/// What the counts know of an open connection.
struct Open {
    client: IpAddr,
    /// Requests being answered on it (0: it waits for its next request, or its first).
    busy: Arc<AtomicUsize>,
    /// Told to close to make room: at once when no request is in flight, else once it is
    /// answered.
    close: Arc<Notify>,
    /// Told already.
    closing: bool,
    /// The newcomer waiting for it to be gone: told (by this being dropped) when it is.
    gone: Option<oneshot::Sender<()>>,
}

/// What [`admit`] gives a connection.
struct Admitted {
    /// Its place in the counts.
    slot: Slot,
    /// Requests in flight on it, their answers' bodies until sent.
    busy: Arc<AtomicUsize>,
    /// Told when it is to close to make room for another.
    close: Arc<Notify>,
    /// When it took the place of a connection told to close: resolves once that one is gone.
    after: Option<oneshot::Receiver<()>>,
}

/// One admitted connection: its place in the counts, given back when dropped.
struct Slot {
    counts: Arc<Mutex<Counts>>,
    id: u64,
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
        c.open.remove(&self.id);
        if let Some(n) = c.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                c.by_client.remove(&self.client);
            }
        }
    }
}

/// A place for a connection from `client`, or the reason it gets none. At `--max-connections`
/// (connections told to close not counted), a connection of the client holding the most that
/// has no request in flight is told to close to make room, when the newcomer's client holds
/// fewer than that one would keep: as with games, a client never loses a connection to one that
/// holds more. The newcomer then waits for it to be gone ([`Admitted::after`]); at most
/// [`REFUSALS`] wait at once.
fn admit(
    counts: &Arc<Mutex<Counts>>,
    client: IpAddr,
    limits: &ConnLimits,
) -> Result<Admitted, String> {
    let mut c = lock(counts);
    let mine = c.by_client.get(&client).copied().unwrap_or(0);
    if mine >= limits.per_client {
        return Err(format!(
            "this client has {} connections open, the limit of one client (--max-client-connections); close some or reuse them",
            limits.per_client
        ));
    }
    let closing = c.open.values().filter(|o| o.closing).count();
    let mut after = None;
    if c.total - closing >= limits.total {
        let full = || {
            format!(
                "the server has {} connections open, its limit (--max-connections); try again shortly",
                limits.total
            )
        };
        if closing >= REFUSALS {
            return Err(full());
        }
        // What each client holds, the connections told to close not counted.
        let mut held: HashMap<IpAddr, usize> = HashMap::new();
        for o in c.open.values().filter(|o| !o.closing) {
            *held.entry(o.client).or_insert(0) += 1;
        }
        let mine = held.get(&client).copied().unwrap_or(0);
        let (top, most) = held
            .iter()
            .max_by_key(|(_, n)| **n)
            .map_or((client, 0), |(a, n)| (*a, *n));
        if mine + 1 >= most {
            return Err(full());
        }
        let idle = c
            .open
            .values_mut()
            .find(|o| o.client == top && !o.closing && o.busy.load(Ordering::Relaxed) == 0);
        let Some(o) = idle else {
            return Err(full());
        };
        let (tell, wait) = oneshot::channel();
        o.closing = true;
        o.gone = Some(tell);
        o.close.notify_one();
        after = Some(wait);
    }
    c.total += 1;
    *c.by_client.entry(client).or_insert(0) += 1;
    let id = c.next;
    c.next += 1;
    let busy = Arc::new(AtomicUsize::new(0));
    let close = Arc::new(Notify::new());
    c.open.insert(
        id,
        Open {
            client,
            busy: busy.clone(),
            close: close.clone(),
            closing: false,
            gone: None,
        },
    );
    let slot = Slot {
        counts: counts.clone(),
        id,
        client,
    };
    Ok(Admitted {
        slot,
        busy,
        close,
        after,
    })
}

/// Counts a request in flight on its connection while it lives.
struct Busy(Arc<AtomicUsize>);

impl Busy {
    fn new(count: &Arc<AtomicUsize>) -> Busy {
        count.fetch_add(1, Ordering::Relaxed);
        Busy(count.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// An answer's body that keeps its request counted in flight ([`Busy`]) until it is sent
/// whole (or dropped with its connection): a connection is never closed to make room in the
/// middle of an answer.
struct BusyBody {
    inner: Body,
    _busy: Busy,
}

impl http_body::Body for BusyBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
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
        let admitted = match admit(&counts, client_of(peer.ip()), &limits) {
            Ok(admitted) => admitted,
            Err(reason) => {
                if let Ok(permit) = refusals.clone().try_acquire_owned() {
                    let idle = limits.idle;
                    tokio::spawn(async move {
                        let _permit = permit;
                        let _ =
                            tokio::time::timeout(idle.min(REFUSAL_TIME), refuse(stream, &reason))
                                .await;
                    });
                }
                continue;
            }
        };
        tokio::spawn(connection(
            stream,
            peer,
            router.clone(),
            admitted,
            limits.clone(),
        ));
    }
}

/// Serves one admitted connection: once the connection whose place it took, if any, is gone;
/// until it ends, or is told to close to make room for another.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    admitted: Admitted,
    limits: ConnLimits,
) {
    // Declared first, dropped last: the slot is given back (and a newcomer waiting for it
    // told) once the socket is closed.
    let Admitted {
        slot: _slot,
        busy,
        close,
        after,
    } = admitted;
    let idle = limits.idle;
    if let Some(after) = after {
        // The connection told to close has no request in flight: it goes at once. One that
        // started a request meanwhile is answered first, within the idle time.
        if tokio::time::timeout(idle, after).await.is_err() {
            let reason = format!(
                "the server has {} connections open, its limit (--max-connections); try again shortly",
                limits.total
            );
            let _ = tokio::time::timeout(idle.min(REFUSAL_TIME), refuse(stream, &reason)).await;
            return;
        }
    }
    let _ = stream.set_nodelay(true);
    let in_flight = busy.clone();
    let service = hyper::service::service_fn(move |mut req| {
        req.extensions_mut().insert(ConnectInfo(peer));
        let busy = Busy::new(&in_flight);
        let answer = tower_service::Service::call(&mut router.clone(), req);
        async move {
            let answer = answer.await;
            answer.map(|res| res.map(|inner| Body::new(BusyBody { inner, _busy: busy })))
        }
    });
    let io = TokioIo::new(WriteTimeout::new(Http2Refusal::new(stream), idle));
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .max_buf_size(MAX_HEAD)
        .max_header_size(MAX_HEAD)
        .header_read_timeout(idle)
        .half_close(true)
        .keep_alive(true)
        .serve_connection(io, service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        // Made room for another client's connection: closed now when it has no request in
        // flight (it waits for its next one, or is still sending its headers), else once the
        // request in flight is answered.
        _ = close.notified() => {
            if busy.load(Ordering::Relaxed) > 0 {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
        }
    }
}

/// An error answer written before (or instead of) the routes: `{"error": reason}` with the
/// security headers, closing the connection.
fn raw_answer(status: StatusCode, reason: &str, extra: &str) -> Vec<u8> {
    let body = serde_json::json!({ "error": reason }).to_string();
    let mut head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}connection: close\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("Error"),
        body.len()
    );
    for (name, value) in SECURITY_HEADERS {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// The framework's own refusal in `buf` (hyper answers a request it cannot parse by itself:
/// 400, 414, 431, with no body and none of our headers), as ours: JSON with the security
/// headers. `None` for anything else (our answers carry the security headers).
fn framework_refusal(buf: &[u8]) -> Option<Vec<u8>> {
    // Every write of every answer passes here: only the start of an error answer's head is
    // looked into (a body's parts are not searched).
    if !(buf.starts_with(b"HTTP/1.1 4") || buf.starts_with(b"HTTP/1.1 5")) {
        return None;
    }
    let head_part = &buf[..buf.len().min(MAX_HEAD)];
    let end = head_part.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&buf[..end]).ok()?;
    let mut status_line = head.lines().next()?.splitn(3, ' ');
    status_line.next()?;
    let status = StatusCode::from_bytes(status_line.next()?.as_bytes()).ok()?;
    if !(status.is_client_error() || status.is_server_error())
        || head.to_ascii_lowercase().contains("x-content-type-options")
    {
        return None;
    }
    let reason = match status.as_u16() {
        431 => format!(
            "the request's headers are over this server's limit ({} KiB, 100 headers)",
            MAX_HEAD >> 10
        ),
        414 => "the request's path is too long".to_string(),
        400 => "the request is not well-formed HTTP/1.1 (its start line, a header, or two Content-Length headers)".to_string(),
        _ => status
            .canonical_reason()
            .unwrap_or("error")
            .to_lowercase(),
    };
    Some(raw_answer(status, &reason, ""))
}

/// Answers a connection over a cap: a 503 with the JSON error, then closes it.
async fn refuse(mut stream: TcpStream, reason: &str) {
    let answer = raw_answer(
        StatusCode::SERVICE_UNAVAILABLE,
        reason,
        "retry-after: 1\r\n",
    );
    if stream.write_all(&answer).await.is_err() {
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

/// What a client speaking HTTP/2 with prior knowledge sends first (RFC 9113, 3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// HTTP/2's own refusal of HTTP/2, for a client that sent [`H2_PREFACE`]: an empty SETTINGS
/// frame (the server's preface), then GOAWAY on stream 0 with last stream 0 and the error
/// HTTP_1_1_REQUIRED (0xd), its reason in the debug data. (Clients that honour it, curl among
/// them, may ask again in HTTP/1.1.)
fn h2_refusal() -> Vec<u8> {
    const REASON: &[u8] = b"this server speaks HTTP/1.1 only";
    let mut out = vec![0, 0, 0, 4, 0, 0, 0, 0, 0];
    let len = (8 + REASON.len()) as u32;
    out.extend_from_slice(&len.to_be_bytes()[1..]);
    out.extend_from_slice(&[7, 0, 0, 0, 0, 0]);
    out.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0x0d]);
    out.extend_from_slice(REASON);
    out
}

/// Where [`Http2Refusal`] stands.
enum Sniff {
    /// The connection's first bytes (fewer than 24), all a start of [`H2_PREFACE`] so far.
    Looking([u8; 24], usize),
    /// They were HTTP/1: these bytes are handed on first.
    Handing([u8; 24], usize, usize),
    /// HTTP/1: reads pass through.
    Passing,
    /// HTTP/2's preface: the refusal is written (these bytes of it so far), then what the
    /// peer sent is read and dropped (up to [`MAX_HEAD`] bytes, so that closing does not reset
    /// the connection before the refusal is read), then the framework is told the peer went.
    Refusing(Vec<u8>, usize, usize),
    /// Refused: reads end.
    Refused,
}

/// A stream that tells an HTTP/2 client (prior knowledge: its first bytes are [`H2_PREFACE`])
/// in HTTP/2 that this server speaks HTTP/1.1 only ([`h2_refusal`]); the framework, which
/// would close such a connection without a word, then sees the peer gone. The first bytes of
/// every connection are held (at most 24) until they tell one from the other.
struct Http2Refusal<S> {
    inner: S,
    sniff: Sniff,
}

impl<S> Http2Refusal<S> {
    fn new(inner: S) -> Self {
        Http2Refusal {
            inner,
            sniff: Sniff::Looking([0; 24], 0),
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Http2Refusal<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = &mut *self;
        loop {
            match &mut me.sniff {
                Sniff::Passing => return Pin::new(&mut me.inner).poll_read(cx, buf),
                Sniff::Refused => return Poll::Ready(Ok(())),
                Sniff::Looking(held, n) => {
                    let mut part = ReadBuf::new(&mut held[*n..]);
                    std::task::ready!(Pin::new(&mut me.inner).poll_read(cx, &mut part))?;
                    let got = part.filled().len();
                    let seen = *n + got;
                    let held = *held;
                    me.sniff = if got > 0 && held[..seen] == H2_PREFACE[..seen] {
                        if seen == H2_PREFACE.len() {
                            Sniff::Refusing(h2_refusal(), 0, 0)
                        } else {
                            Sniff::Looking(held, seen)
                        }
                    } else {
                        Sniff::Handing(held, 0, seen)
                    };
                }
                Sniff::Handing(held, from, to) => {
                    let k = (*to - *from).min(buf.remaining());
                    buf.put_slice(&held[*from..*from + k]);
                    *from += k;
                    if from == to {
                        me.sniff = Sniff::Passing;
                    }
                    return Poll::Ready(Ok(()));
                }
                Sniff::Refusing(answer, written, drained) => {
                    while *written < answer.len() {
                        let n = std::task::ready!(
                            Pin::new(&mut me.inner).poll_write(cx, &answer[*written..])
                        )?;
                        if n == 0 {
                            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                        }
                        *written += n;
                    }
                    // The peer is told no more comes (errors: it went already).
                    let _ = std::task::ready!(Pin::new(&mut me.inner).poll_shutdown(cx));
                    let mut sink = [0u8; 4096];
                    while *drained < MAX_HEAD {
                        let mut part = ReadBuf::new(&mut sink);
                        match Pin::new(&mut me.inner).poll_read(cx, &mut part) {
                            Poll::Pending => return Poll::Pending,
                            Poll::Ready(Ok(())) if !part.filled().is_empty() => {
                                *drained += part.filled().len();
                            }
                            Poll::Ready(_) => break,
                        }
                    }
                    me.sniff = Sniff::Refused;
                }
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Http2Refusal<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A stream whose writes fail when they make no progress for `limit`: an answer to a peer that
/// does not read is dropped, with its connection, instead of holding both forever. The
/// framework's own refusals are rewritten as ours on their way ([`framework_refusal`]).
struct WriteTimeout<S> {
    inner: S,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
    /// A refusal written in place of the framework's: its bytes, those written, and the
    /// length of the framework's write it stands for.
    rewritten: Option<(Vec<u8>, usize, usize)>,
}

impl<S> WriteTimeout<S> {
    fn new(inner: S, limit: Duration) -> Self {
        WriteTimeout {
            inner,
            limit,
            stalled: None,
            rewritten: None,
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
        if self.rewritten.is_none() {
            if let Some(ours) = framework_refusal(buf) {
                self.rewritten = Some((ours, 0, buf.len()));
            }
        }
        let Some((ours, done, stands_for)) = self.rewritten.take() else {
            return self.timed(cx, |s, cx| s.poll_write(cx, buf));
        };
        let mut done = done;
        while done < ours.len() {
            match self.timed(cx, |s, cx| s.poll_write(cx, &ours[done..])) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => done += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    self.rewritten = Some((ours, done, stands_for));
                    return Poll::Pending;
                }
            }
        }
        Poll::Ready(Ok(stands_for))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.timed(cx, |s, cx| s.poll_flush(cx))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.timed(cx, |s, cx| s.poll_shutdown(cx))
    }

    /// No: the framework then writes each answer's head whole in one write, where
    /// [`framework_refusal`] reads it.
    fn is_write_vectored(&self) -> bool {
        false
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
            .err()
            .unwrap()
            .contains("--max-client-connections"));
        let _b1 = admit(&counts, b, &limits).unwrap();
        assert!(admit(&counts, b, &limits)
            .err()
            .unwrap()
            .contains("--max-connections"));
        drop(a1);
        let _a3 = admit(&counts, a, &limits).unwrap();
        assert_eq!(lock(&counts).total, 3);
    }

    #[test]
    fn at_the_cap_an_idle_connection_of_the_biggest_holder_makes_room() {
        let counts = Arc::new(Mutex::new(Counts::default()));
        let limits = ConnLimits {
            total: 4,
            per_client: 4,
            idle: Duration::from_secs(1),
        };
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let c: IpAddr = "10.0.0.3".parse().unwrap();
        let held: Vec<_> = (0..3)
            .map(|_| admit(&counts, a, &limits).unwrap())
            .collect();
        // A request in flight on each of a's connections but one: that one is told to close.
        for h in &held[..2] {
            h.busy.fetch_add(1, Ordering::Relaxed);
        }
        let b1 = admit(&counts, b, &limits).unwrap();
        assert!(b1.after.is_none(), "under the cap, nothing waits");
        let mut c1 = admit(&counts, c, &limits).unwrap();
        // The newcomer waits for the connection told to close to be gone.
        let mut after = c1.after.take().expect("c1 took a connection's place");
        assert!(
            after.try_recv().is_err(),
            "told before a's connection is gone"
        );
        assert!(lock(&counts)
            .open
            .values()
            .any(|o| o.closing && o.client == a));
        // a's idle one is closing already, its others answer requests: no room.
        assert!(admit(&counts, c, &limits).is_err());
        drop(held);
        assert!(
            matches!(after.try_recv(), Err(oneshot::error::TryRecvError::Closed)),
            "told once it is gone"
        );
        assert_eq!(lock(&counts).total, 2);
    }

    #[test]
    fn clients_are_grouped_as_networks_hand_out_addresses() {
        let of = |a: &str| client_of(a.parse().unwrap());
        // An IPv6 client by its /64: the addresses of one host or site are one client.
        assert_eq!(
            of("2001:db8:1:2::1"),
            of("2001:db8:1:2:ffff:ffff:ffff:fffe")
        );
        assert_ne!(of("2001:db8:1:2::1"), of("2001:db8:1:3::1"));
        assert_eq!(of("2001:db8:1:2::1"), of("2001:db8:1:2::"));
        // IPv4, written either way, by its address; loopback addresses each on their own.
        assert_eq!(of("::ffff:192.0.2.7"), of("192.0.2.7"));
        assert_ne!(of("192.0.2.7"), of("192.0.2.8"));
        assert_ne!(of("127.0.0.1"), of("127.0.0.2"));
        assert_eq!(of("::1"), of("::1"));
    }

    #[test]
    fn the_frameworks_refusals_become_ours() {
        let theirs =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let ours = String::from_utf8(framework_refusal(theirs).unwrap()).unwrap();
        assert!(ours.starts_with("HTTP/1.1 431 "), "{ours}");
        assert!(ours.contains("x-content-type-options: nosniff"), "{ours}");
        assert!(ours.ends_with("KiB, 100 headers)\"}"), "{ours}");
        // Our own answers, and anything that is not an answer's head, pass unchanged.
        let own = raw_answer(StatusCode::FORBIDDEN, "no", "");
        assert!(framework_refusal(&own).is_none());
        assert!(framework_refusal(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(framework_refusal(b"{\"games\": [HTTP/1.1 400 x").is_none());
    }
}
