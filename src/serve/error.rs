//! The API's error answers: a status and `{"error": reason}`, for every error the server
//! gives, axum's own refusals (an unreadable body, a wrong method) included, and never a
//! path of the server's in the reason.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// An error answer: a 4xx (or 5xx) status and `{"error": reason}`.
#[derive(Debug)]
pub struct ApiError(pub(super) StatusCode, pub(super) String);

impl ApiError {
    pub(super) fn bad(reason: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, reason.into())
    }
    pub(super) fn conflict(reason: impl Into<String>) -> ApiError {
        ApiError(StatusCode::CONFLICT, reason.into())
    }
    /// A request the server's admission rules refuse (a cap, a file name).
    pub(super) fn forbidden(reason: impl Into<String>) -> ApiError {
        ApiError(StatusCode::FORBIDDEN, reason.into())
    }
    /// A body, or the answer it asks for, over the server's limits.
    pub(super) fn too_large(reason: impl Into<String>) -> ApiError {
        ApiError(StatusCode::PAYLOAD_TOO_LARGE, reason.into())
    }
    /// The server is busy: ask again shortly.
    pub(super) fn busy(reason: impl Into<String>) -> ApiError {
        ApiError(StatusCode::SERVICE_UNAVAILABLE, reason.into())
    }
}

/// The reason of an error answer, kept beside it for [`json_errors`] to scrub.
#[derive(Clone)]
struct Reason(String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut res = (self.0, Json(json!({ "error": self.1 }))).into_response();
        res.extensions_mut().insert(Reason(self.1));
        res
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        ApiError(r.status(), format!("bad JSON body: {}", r.body_text()))
    }
}

pub(super) type ApiResult<T> = Result<T, ApiError>;

/// What writes the operator's folders out of a reason (`Admission::scrub`).
pub(super) type Scrub = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// The largest body of an error answer read back to be rewritten as JSON.
const ERROR_BODY: usize = 64 * 1024;

/// Every error answer as `{"error": reason}` with the operator's folders scrubbed from the
/// reason (`<tablebase>`, `<networks>`): ours, and those axum writes as plain text (a body over
/// the limit, text that is not UTF-8, a path that does not decode).
pub(super) async fn json_errors(State(scrub): State<Scrub>, res: Response) -> Response {
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let reason = match parts.extensions.remove::<Reason>() {
        Some(Reason(r)) => r,
        None => {
            let bytes = axum::body::to_bytes(body, ERROR_BODY)
                .await
                .unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes).trim().to_string();
            if text.is_empty() {
                status.canonical_reason().unwrap_or("error").to_lowercase()
            } else {
                text
            }
        }
    };
    let body = json!({ "error": scrub(&reason) }).to_string();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(body))
}
