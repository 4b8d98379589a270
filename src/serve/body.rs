//! Request bodies: read whole before any route sees them, within a size (the route's limit)
//! and a time (`--idle-timeout-ms` for each part to arrive, [`BODY_TIME`] in all). A body
//! announced over the limit is refused with 413 before it is read. Replay bodies past their
//! first [`BODY_LIMIT`] bytes are counted, while they are read and replayed, against
//! [`REPLAY_BODIES`] for all clients together and [`REPLAY_CLIENT_BODIES`] for one client
//! address: over either, a 503 before they are read.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;

use super::admission::{BODY_LIMIT, REPLAY_BODIES, REPLAY_CLIENT_BODIES, REPLAY_LIMIT};
use super::conn::client_of;
use super::error::ApiError;
use super::ledger::Short;
use super::session::AppState;

/// Longest time to receive a whole body.
pub(super) const BODY_TIME: Duration = Duration::from_secs(30);

/// The largest body of a route.
fn limit_of(path: &str) -> usize {
    if path == "/api/replay" {
        REPLAY_LIMIT
    } else {
        BODY_LIMIT
    }
}

/// KiB counted for `bytes` bytes of a body past its first [`BODY_LIMIT`].
fn counted_kib(bytes: usize) -> u64 {
    bytes.saturating_sub(BODY_LIMIT).div_ceil(1024) as u64
}

/// The client a request comes from (its address as [`client_of`] counts clients).
pub(super) fn client_of_request(req: &Request) -> IpAddr {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| client_of(c.0.ip()))
}

/// Why a body was not read.
enum Refused {
    Over,
    Busy(Short),
    Stalled,
    Unreadable,
}

/// The middleware: the body read (or refused) here, then handed to the route as bytes.
pub(super) async fn read_body(
    State(app): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    let limit = limit_of(req.uri().path());
    let too_large = || {
        ApiError::too_large(format!(
            "the body is over this route's limit of {limit} bytes"
        ))
        .into_response()
    };
    let busy = |short: Short| {
        let reason = match short {
            Short::All => format!(
                "the server is reading or replaying {} MiB of replay bodies, its limit for all clients; send it again shortly",
                REPLAY_BODIES >> 20
            ),
            Short::Client => format!(
                "this client is sending or replaying {} MiB of replay bodies, its share of the server's; send it again once they are done",
                REPLAY_CLIENT_BODIES >> 20
            ),
        };
        ApiError::busy(reason).into_response()
    };
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > limit as u64) {
        return too_large();
    }
    // An announced body is counted whole before it is read; another as it arrives.
    // The body's share of REPLAY_BODIES, grown as the body grows.
    let mut share = app.replay_bodies.empty(Some(client_of_request(&req)));
    if let Some(n) = announced {
        if let Err(short) = share.grow_to(counted_kib(n as usize)) {
            return busy(short);
        }
    }
    let (parts, mut body) = req.into_parts();
    let mut bytes = Vec::with_capacity(announced.map_or(0, |n| n as usize));
    let idle = app.body_idle;
    let read = async {
        loop {
            // Each part within the idle time (a body that pauses longer is dropped), the
            // whole within BODY_TIME (below).
            let frame = match tokio::time::timeout(idle, body.frame()).await {
                Err(_) => return Err(Refused::Stalled),
                Ok(None) => return Ok(()),
                Ok(Some(frame)) => frame.map_err(|_| Refused::Unreadable)?,
            };
            if let Ok(data) = frame.into_data() {
                let len = bytes.len() + data.len();
                if len > limit {
                    return Err(Refused::Over);
                }
                // The buffer grows as a Vec's does, within the limit; what it allocates is
                // what is counted.
                if len > bytes.capacity() {
                    let want = (bytes.capacity() * 2).clamp(len, limit);
                    share.grow_to(counted_kib(want)).map_err(Refused::Busy)?;
                    bytes.reserve_exact(want - bytes.len());
                }
                bytes.extend_from_slice(&data);
            }
        }
    };
    let stalled = || {
        ApiError(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the body did not arrive within {} s, or paused over {} ms (--idle-timeout-ms)",
                BODY_TIME.as_secs(),
                idle.as_millis()
            ),
        )
        .into_response()
    };
    match tokio::time::timeout(BODY_TIME, read).await {
        Err(_) | Ok(Err(Refused::Stalled)) => stalled(),
        Ok(Err(Refused::Over)) => too_large(),
        Ok(Err(Refused::Busy(short))) => busy(short),
        Ok(Err(Refused::Unreadable)) => ApiError::bad("the body could not be read").into_response(),
        Ok(Ok(())) => {
            // The share is held while the route works on the body (a replay), then given back.
            let answer = next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
            drop(share);
            answer
        }
    }
}
