//! Ratings: how strong an agent is, from the games it played. Every rating method and every
//! run of games made to rate agents lives here, beside the tournaments it uses.
//!
//! - [`elo`]: maximum-likelihood Elo of two-player results, with 95% intervals (the fit every
//!   other file builds on); [`placing`]: ratings from the finishing orders of 3+ players.
//! - [`sprt`]: fishtest's sequential probability ratio test on paired games; [`matchplay`]:
//!   a match between two agents (`awale match`), fixed-length or stopped by the test.
//! - [`scorecard`]: an agent's rating on a published protocol's fixed scale (`awale scorecard`).
//! - [`calibration`]: the reference ratings of the trainer's evaluation opponents.
//! - [`endgame`]: the endgame yardstick, the share of perfect moves an agent plays in positions
//!   an endgame table solves.
//! - `ladder` (cargo feature `train`, for its SVG and TensorBoard output): the generations of
//!   training runs and anchor agents on one scale (`awale ladder`).
//!
//! **Adding a rating method**: one file here with its fit (taking results or finishing orders,
//! returning ratings and intervals, on the Elo scale as [`elo::EloFit`] does), and its `pub mod`
//! line below; a tournament reports it by calling it from `crate::tournament::report`. A run of
//! games that rates (as [`matchplay`] or [`scorecard`]) builds on `crate::tournament`, never on
//! the trainer, the command line or the bindings.

pub mod calibration;
pub mod elo;
pub mod endgame;
#[cfg(feature = "train")]
pub mod ladder;
pub mod matchplay;
pub mod placing;
pub mod scorecard;
pub mod sprt;
