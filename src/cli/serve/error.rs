//! The API's error answers: a status and `{"error": reason}`.

use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
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
    /// A request the server's policy refuses (a cap, a file name).
    pub(super) fn forbidden(reason: impl Into<String>) -> ApiError {
        ApiError(StatusCode::FORBIDDEN, reason.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        ApiError(r.status(), format!("bad JSON body: {}", r.body_text()))
    }
}

pub(super) type ApiResult<T> = Result<T, ApiError>;
