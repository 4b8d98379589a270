//! Agent specs as text: `KIND[:KEY=VALUE,...]` (`alphabeta:depth=8`, `mcts:sims=2000`,
//! `random`) parsed into an [`AgentSpec`], and lists of them ([`parse_agent_list`]). What the
//! kinds and their options mean is the [`Registry`](super::Registry)'s business.
//!
//! ```
//! use awale::agents::AgentSpec;
//! let spec: AgentSpec = "alphabeta:depth=4,eval=material".parse().unwrap();
//! assert_eq!(spec.kind, "alphabeta");
//! assert_eq!(spec.get("depth"), Some("4"));
//! assert_eq!(spec.to_string(), "alphabeta:depth=4,eval=material");
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{AwaleError, Result};

/// A parsed agent spec: a kind and its options, in the order written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AgentSpec {
    /// The kind of agent (`random`, `greedy`, `alphabeta`, `mcts`, or a registered one).
    pub kind: String,
    /// `KEY=VALUE` options.
    pub options: Vec<(String, String)>,
}

impl AgentSpec {
    /// A spec of `kind` without options.
    pub fn new(kind: impl Into<String>) -> AgentSpec {
        AgentSpec {
            kind: kind.into(),
            options: Vec::new(),
        }
    }

    /// The value of option `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The display name: the `name` option, or else the spec written without it.
    ///
    /// ```
    /// use awale::agents::AgentSpec;
    /// let s: AgentSpec = "mcts:sims=50,name=quick".parse().unwrap();
    /// assert_eq!(s.display_name(), "quick");
    /// let s: AgentSpec = "mcts:sims=50".parse().unwrap();
    /// assert_eq!(s.display_name(), "mcts:sims=50");
    /// ```
    pub fn display_name(&self) -> String {
        if let Some(n) = self.get("name") {
            return n.to_string();
        }
        let rest: Vec<String> = self
            .options
            .iter()
            .filter(|(k, _)| k != "name")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if rest.is_empty() {
            self.kind.clone()
        } else {
            format!("{}:{}", self.kind, rest.join(","))
        }
    }

    /// The error for this spec, with `reason`.
    pub(crate) fn error(&self, reason: impl Into<String>) -> AwaleError {
        AwaleError::BadAgentSpec {
            spec: self.to_string(),
            reason: reason.into(),
        }
    }

    /// Option `key` as a whole number, or `default` when absent.
    pub fn u64_or(&self, key: &str, default: u64) -> Result<u64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| self.error(format!("{key}: '{v}' is not a whole number"))),
        }
    }

    /// Option `key` as a whole number that may be negative, or `default` when absent.
    pub fn i64_or(&self, key: &str, default: i64) -> Result<i64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| self.error(format!("{key}: '{v}' is not a whole number"))),
        }
    }

    /// Option `key` as a finite number, or `default` when absent.
    pub fn f64_or(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(self.error(format!("{key}: '{v}' is not a number"))),
            },
        }
    }
}

impl FromStr for AgentSpec {
    type Err = AwaleError;

    /// Parses `KIND[:KEY=VALUE,...]`.
    fn from_str(text: &str) -> Result<AgentSpec> {
        let text = text.trim();
        let bad = |reason: String| AwaleError::BadAgentSpec {
            spec: text.to_string(),
            reason,
        };
        let (kind, opts) = text.split_once(':').unwrap_or((text, ""));
        let kind = kind.trim();
        if kind.is_empty() {
            return Err(bad(
                "the agent kind is missing (e.g. random, greedy, alphabeta:depth=6)".into(),
            ));
        }
        if !kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(bad(format!(
                "'{kind}' is not an agent kind (letters, digits, '-' and '_')"
            )));
        }
        let mut options: Vec<(String, String)> = Vec::new();
        for part in opts.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("option '{part}' should be KEY=VALUE")))?;
            let (k, v) = (k.trim(), v.trim());
            if k.is_empty() || v.is_empty() {
                return Err(bad(format!("option '{part}' should be KEY=VALUE")));
            }
            if options.iter().any(|(key, _)| key == k) {
                return Err(bad(format!("option '{k}' is given twice")));
            }
            options.push((k.to_string(), v.to_string()));
        }
        Ok(AgentSpec {
            kind: kind.to_string(),
            options,
        })
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        for (i, (k, v)) in self.options.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// Parses a list of specs separated by commas, semicolons or spaces. A comma-separated piece
/// of the form `KEY=VALUE` (no `:` before its `=`) continues the options of the spec before it,
/// so `random,alphabeta:depth=4,nodes=5000,mcts` is three specs.
///
/// ```
/// use awale::agents::parse_agent_list;
/// let specs = parse_agent_list("random,alphabeta:depth=4,nodes=5000,mcts:sims=100").unwrap();
/// let names: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
/// assert_eq!(names, ["random", "alphabeta:depth=4,nodes=5000", "mcts:sims=100"]);
/// assert!(parse_agent_list("depth=4").is_err());
/// ```
pub fn parse_agent_list(text: &str) -> Result<Vec<AgentSpec>> {
    let mut specs: Vec<String> = Vec::new();
    for word in text.split(|c: char| c == ';' || c.is_whitespace()) {
        let mut in_word = false;
        for part in word.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let continues = part.split_once('=').is_some_and(|(k, _)| !k.contains(':'));
            if continues {
                let last = specs.last_mut().filter(|_| in_word).ok_or_else(|| {
                    AwaleError::BadAgentSpec {
                        spec: part.to_string(),
                        reason: "an option must follow an agent kind, as in alphabeta:depth=4"
                            .into(),
                    }
                })?;
                last.push(if last.contains(':') { ',' } else { ':' });
                last.push_str(part);
            } else {
                specs.push(part.to_string());
                in_word = true;
            }
        }
    }
    if specs.is_empty() {
        return Err(AwaleError::BadAgentSpec {
            spec: text.to_string(),
            reason: "no agents given".into(),
        });
    }
    specs.iter().map(|s| s.parse()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_and_errors_name_the_problem() {
        let s: AgentSpec = " alphabeta:depth=8 , nodes=100 ".parse().unwrap();
        assert_eq!(s.to_string(), "alphabeta:depth=8,nodes=100");
        assert_eq!(s.to_string().parse::<AgentSpec>().unwrap(), s);
        let e = "alphabeta:depth"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("KEY=VALUE"), "{e}");
        let e = "mcts:sims=1,sims=2"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("twice"), "{e}");
    }
}
