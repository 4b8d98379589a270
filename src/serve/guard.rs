//! Who may talk to `awale serve`: the Host and Origin checks (against DNS rebinding and other
//! sites' pages) and the token (with `--host` other than loopback, as Jupyter does). Every
//! request passes here before its route.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

/// The cookie that carries the token once the page was opened with `?token=`.
const COOKIE: &str = "awale_token";

/// The access rules of one server.
#[derive(Debug, Clone)]
pub struct Access {
    /// The token every request must carry (`Authorization: Bearer`, the cookie, or `?token=`);
    /// `None`: no authentication.
    pub token: Option<String>,
    /// Host names accepted besides loopback names and IP literals (`--allow-host`).
    pub hosts: Vec<String>,
}

impl Access {
    /// The access of a server listening on `host`: the operator's `token`, else a random one
    /// unless `host` is loopback or the operator said `--no-auth`; names from `--allow-host`.
    pub fn new(host: IpAddr, token: Option<String>, no_auth: bool, hosts: Vec<String>) -> Access {
        let token = match token {
            Some(t) => Some(t),
            None if !no_auth && !host.is_loopback() => Some(Access::random_token()),
            None => None,
        };
        Access { token, hosts }
    }

    /// A fresh random token: 32 hexadecimal digits (128 bits).
    pub fn random_token() -> String {
        format!("{:032x}", rand::random::<u128>())
    }

    /// Whether the Host header names this server: `localhost`, an IP literal (DNS rebinding
    /// needs a host *name*), or an `--allow-host` name. With a token any host is accepted:
    /// a rebound page has no token.
    fn host_ok(&self, headers: &HeaderMap) -> bool {
        if self.token.is_some() {
            return true;
        }
        let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
            return false;
        };
        let name = strip_port(host);
        name.eq_ignore_ascii_case("localhost")
            || name.parse::<IpAddr>().is_ok()
            || self.hosts.iter().any(|h| h.eq_ignore_ascii_case(name))
    }

    /// Whether a request's credentials carry the token; the token given in the query, if any
    /// (the page's first visit), to be set as a cookie.
    fn authorized(&self, req: &Request) -> (bool, Option<String>) {
        let Some(token) = &self.token else {
            return (true, None);
        };
        let headers = req.headers();
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "));
        if bearer.is_some_and(|b| same(b.trim(), token)) {
            return (true, None);
        }
        let cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|h| h.to_str().ok())
            .flat_map(|h| h.split(';'))
            .filter_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
            .any(|c| same(c, token));
        if cookie {
            return (true, None);
        }
        let query = req
            .uri()
            .query()
            .into_iter()
            .flat_map(|q| q.split('&'))
            .filter_map(|kv| kv.strip_prefix("token="))
            .find(|t| same(t, token));
        match query {
            Some(t) => (true, Some(t.to_string())),
            None => (false, None),
        }
    }
}

/// Whether two tokens are equal, in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// `host` without its port (`[::1]:80` → `::1`, `localhost:8080` → `localhost`).
fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    }
}

/// Whether the Origin header, when a browser sends one, is this server itself (the page).
fn origin_ok(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let origin = origin.to_str().unwrap_or("");
    origin == format!("http://{host}") || origin == format!("https://{host}")
}

/// The middleware: Host, Origin, then the token; a refusal is a 4xx with its reason.
pub(super) async fn guard(State(access): State<Arc<Access>>, req: Request, next: Next) -> Response {
    if !access.host_ok(req.headers()) {
        return ApiError(
            StatusCode::FORBIDDEN,
            "this Host is not served: use localhost or an IP address, or start the server with --allow-host NAME".into(),
        )
        .into_response();
    }
    if !origin_ok(req.headers()) {
        return ApiError(
            StatusCode::FORBIDDEN,
            "cross-origin request refused: only the server's own page may call the API".into(),
        )
        .into_response();
    }
    let (ok, set_cookie) = access.authorized(&req);
    if !ok {
        return ApiError(
            StatusCode::UNAUTHORIZED,
            "this server needs its token: open the address it printed (…/?token=…), or send Authorization: Bearer TOKEN".into(),
        )
        .into_response();
    }
    let mut res = next.run(req).await;
    if let Some(t) = set_cookie {
        let cookie = format!("{COOKIE}={t}; HttpOnly; SameSite=Strict; Path=/");
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            res.headers_mut().insert(header::SET_COOKIE, v);
        }
    }
    res
}

/// The page's Content-Security-Policy: its script and style come from this server only (no
/// inline code, no other site), it calls this server's API only, and no other site may frame
/// it. Sent with every answer.
pub(super) const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The security headers of every answer, ours and the refusals written before a request
/// reaches the routes ([`super::conn`]): the CSP, no framing (for browsers without CSP 3), no
/// type sniffing, no referrer (the page's address may carry the token).
pub(super) const SECURITY_HEADERS: [(&str, &str); 4] = [
    ("content-security-policy", CSP),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
];

/// The middleware that adds [`SECURITY_HEADERS`] to every answer of the routes.
pub(super) async fn security_headers(mut res: Response) -> Response {
    let h = res.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        h.insert(name, HeaderValue::from_static(value));
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_stripped() {
        assert_eq!(strip_port("localhost:8080"), "localhost");
        assert_eq!(strip_port("[::1]:80"), "::1");
        assert_eq!(strip_port("127.0.0.1"), "127.0.0.1");
        assert_eq!(strip_port("evil.example"), "evil.example");
    }

    #[test]
    fn a_token_unless_loopback_or_no_auth() {
        let any: IpAddr = "0.0.0.0".parse().unwrap();
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        let lo6: IpAddr = "::1".parse().unwrap();
        assert!(Access::new(any, None, false, vec![]).token.is_some());
        assert!(Access::new(any, None, true, vec![]).token.is_none());
        assert!(Access::new(lo, None, false, vec![]).token.is_none());
        assert!(Access::new(lo6, None, false, vec![]).token.is_none());
        let t = Some("0123456789abcdef".to_string());
        assert_eq!(Access::new(lo, t.clone(), false, vec![]).token, t);
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("ab", "abc"));
        assert_eq!(Access::random_token().len(), 32);
        assert_ne!(Access::random_token(), Access::random_token());
    }
}
