//! Request bodies: read whole before any route sees them, within a size (the route's limit)
//! and a time (`--idle-timeout-ms` for each part to arrive, [`BODY_TIME`] in all). A body
//! announced over the limit is refused with 413 before it is read.

use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;

use super::error::ApiError;

/// Largest JSON request body (a game record for `/api/replay` may be larger).
pub(super) const BODY_LIMIT: usize = 64 * 1024;
/// Largest `/api/replay` body: a tournament file of a few thousand games.
pub(super) const REPLAY_LIMIT: usize = 16 * 1024 * 1024;

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

/// The middleware: the body read (or refused) here, then handed to the route as bytes.
pub(super) async fn read_body(req: Request, next: Next) -> Response {
    let limit = limit_of(req.uri().path());
    let too_large = || {
        ApiError::too_large(format!(
            "the body is over this route's limit of {limit} bytes"
        ))
        .into_response()
    };
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > limit as u64) {
        return too_large();
    }
    let (parts, mut body) = req.into_parts();
    let mut bytes = Vec::new();
    let read = async {
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|_| "the body could not be read")?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > limit {
                    return Err("over");
                }
                bytes.extend_from_slice(&data);
            }
        }
        Ok(())
    };
    match tokio::time::timeout(BODY_TIME, read).await {
        Err(_) => ApiError(
            StatusCode::REQUEST_TIMEOUT,
            format!("the body did not arrive within {} s", BODY_TIME.as_secs()),
        )
        .into_response(),
        Ok(Err("over")) => too_large(),
        Ok(Err(reason)) => ApiError::bad(reason).into_response(),
        Ok(Ok(())) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}
