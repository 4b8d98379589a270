//! An agent's move: the agent thinks on a worker thread, within the server's move time.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use awale::agents::{Agent, StopSignal, Turn};
use awale::notation::{format_move, player_name};

use super::error::{ApiError, ApiResult};
use super::session::{lock, AppState, LastMove, Seat};
use super::view::view;

pub(super) async fn agent_move(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let session = app.session(&id)?;
    // Only an agent about to think waits for a permit (outside the game's lock); the checks
    // below are made again under the lock.
    let wants = {
        let s = lock(&session);
        !s.thinking
            && !s.game.is_over()
            && matches!(s.seats[s.game.to_move()], Seat::Agent { costly: true, .. })
    };
    let permit = if wants {
        Some(app.permit().await?)
    } else {
        None
    };
    // This move's stop signal: raised at the move time (below), or when the game is deleted or
    // dropped; the agent then plays its best move so far.
    let stop = StopSignal::new();
    let (mut agent, game, spec) = {
        let mut s = lock(&session);
        if s.thinking {
            return Ok((StatusCode::ACCEPTED, Json(view(&app, &id, &s))).into_response());
        }
        if s.game.is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        let mover = s.game.to_move();
        let rules = *s.game.rules();
        let game = s.game.clone();
        match &mut s.seats[mover] {
            Seat::Person => {
                return Err(ApiError::conflict(format!(
                    "it is {}'s turn, a person's: send /api/games/{id}/move",
                    player_name(&rules, mover)
                )))
            }
            Seat::Agent { costly: true, .. } if permit.is_none() => {
                // The game changed between the first look and now: ask again.
                return Err(ApiError::busy(
                    "the game changed while waiting for a turn to think: ask again",
                ));
            }
            Seat::Agent { spec, agent, .. } => {
                let spec = spec.clone();
                let mut agent = agent
                    .take()
                    .expect("an agent that is not thinking is in its seat");
                agent.set_stop(stop.clone());
                s.thinking = true;
                s.stop = Some(stop.clone());
                (agent, game, spec)
            }
        }
    };
    let worker = {
        let session = session.clone();
        let admission = app.admission.clone();
        let scrub = move |text: &str| admission.scrub(text);
        tokio::task::spawn_blocking(move || {
            // Held while the agent thinks, even after the request has answered 202.
            let _permit = permit;
            let mover = game.to_move();
            let rules = *game.rules();
            // A panicking agent must not leave the game "thinking" with its seat empty: the
            // panic becomes this move's error and the agent goes back to its seat.
            let choice = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                agent.select(&Turn::from_game(&game))
            }))
            .unwrap_or_else(|_| {
                Err(awale::AwaleError::AgentFailed {
                    agent: spec.clone(),
                    reason: "the agent panicked".into(),
                })
            });
            let thoughts = agent.thoughts();
            let mut s = lock(&session);
            s.thinking = false;
            s.stop = None;
            if let Seat::Agent { agent: slot, .. } = &mut s.seats[mover] {
                *slot = Some(agent);
            }
            match choice.and_then(|house| Ok((house, s.game.apply(house)?))) {
                Ok((house, info)) => {
                    s.last = Some(LastMove {
                        player: mover,
                        house,
                        label: format_move(&rules, mover, house),
                        captured: info.captured,
                        by: spec,
                        thoughts,
                    });
                    s.error = None;
                }
                Err(e) => s.error = Some(scrub(&format!("{spec}: {e}"))),
            }
        })
    };
    // The agent's own clock ends its move at the move time; the stop signal ends it there too
    // (an agent whose spec has no clock, or one that overran); a request waits one more
    // second for the move, then answers 202 (the page asks again).
    // The watchdog is a task of its own: it fires even when this request is gone (a client
    // that hung up); raising a finished move's signal does nothing.
    let move_time = app.move_time;
    tokio::spawn(async move {
        tokio::time::sleep(move_time).await;
        stop.stop();
    });
    match tokio::time::timeout(move_time + Duration::from_secs(1), worker).await {
        Err(_) => {
            let s = lock(&session);
            Ok((StatusCode::ACCEPTED, Json(view(&app, &id, &s))).into_response())
        }
        Ok(joined) => {
            let s = lock(&session);
            if let Err(e) = joined {
                return Err(ApiError(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the agent failed: {e}"),
                ));
            }
            match &s.error {
                Some(e) => Err(ApiError(StatusCode::UNPROCESSABLE_ENTITY, e.clone())),
                None => Ok(Json(view(&app, &id, &s)).into_response()),
            }
        }
    }
}
