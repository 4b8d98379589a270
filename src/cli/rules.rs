//! `awale rules [PRESET]`: the rule presets, every option, and the spec syntax.

use awale::presets::{presets, PresetDef};
use awale::rules::{find_option, RULES_OPTIONS};
use awale::Rules;

const AFTER_HELP: &str = "\
Lists the rule presets and every rules option, with the value each preset gives it, and
explains the rules spec syntax. With PRESET (a preset name or a full rules spec), shows that
rule set's choices, one option per line.

Examples:
  awale rules                      list the presets and every option's value per preset
  awale rules awale                the choices of the common Awalé rules
  awale rules oware3               three-player Owaré
  awale rules wari:max_plies=300   a preset with an option changed

A rules spec is PRESET[:KEY=VALUE,KEY=VALUE,...] with no spaces, e.g. abapa:max_plies=200 or
oware:players=4. Every command that takes --rules or a position accepts one.";

/// Arguments of `awale rules`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// A preset name or rules spec to describe (e.g. `awale`, `oware3`, `abapa:max_plies=200`).
    pub preset: Option<String>,
}

/// The preset table grouped by family, in table order (owaré's player counts in one group).
fn families() -> Vec<Vec<&'static PresetDef>> {
    let mut groups: Vec<Vec<&'static PresetDef>> = Vec::new();
    for def in presets() {
        match groups.iter_mut().find(|g| g[0].family == def.family) {
            Some(group) => group.push(def),
            None => groups.push(vec![def]),
        }
    }
    groups
}

/// The columns of the overview table: each family of presets, its members folded into one.
fn columns() -> Vec<(String, Vec<Rules>)> {
    families()
        .into_iter()
        .map(|group| {
            let name = if group.len() == 1 {
                group[0].spec.to_string()
            } else {
                let counts: Vec<String> = group
                    .iter()
                    .map(|d| d.rules().players.to_string())
                    .collect();
                format!("{}{}", group[0].family, counts.join("/"))
            };
            (name, group.iter().map(|d| d.rules()).collect())
        })
        .collect()
}

/// The overview: presets, the options table, and the spec syntax.
fn overview() -> String {
    let mut out = String::from("PRESETS\n");
    for group in families() {
        for def in &group {
            let aliases = if def.aliases.is_empty() {
                String::new()
            } else {
                format!(" (also: {})", def.aliases.join(", "))
            };
            out.push_str(&format!("  {:<10} {}{aliases}\n", def.spec, def.summary));
        }
        if group.len() > 1 {
            let counts: Vec<String> = group
                .iter()
                .map(|d| d.rules().players.to_string())
                .collect();
            out.push_str(&format!(
                "  ({} takes players={}; {} are shorthands)\n",
                group[0].family,
                counts.join(", "),
                group.iter().map(|d| d.spec).collect::<Vec<_>>().join(", ")
            ));
        }
    }

    let cols = columns();
    let keys: Vec<&str> = RULES_OPTIONS.iter().map(|def| def.key).collect();
    // values[column][option]
    let values: Vec<Vec<String>> = cols
        .iter()
        .map(|(_, rules)| {
            let per_rules: Vec<Vec<String>> = rules
                .iter()
                .map(|r| r.options().into_iter().map(|(_, v)| v).collect())
                .collect();
            (0..keys.len())
                .map(|i| {
                    let mut vs: Vec<String> = per_rules.iter().map(|o| o[i].clone()).collect();
                    vs.dedup();
                    vs.join("/")
                })
                .collect()
        })
        .collect();
    let key_w = keys.iter().map(|k| k.len()).max().unwrap_or(0);
    let widths: Vec<usize> = cols
        .iter()
        .zip(&values)
        .map(|((name, _), vs)| {
            vs.iter()
                .map(String::len)
                .chain([name.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    out.push_str("\nOPTIONS (value per preset)\n");
    let mut header = format!("  {:<key_w$}", "option");
    for ((name, _), w) in cols.iter().zip(&widths) {
        header.push_str(&format!("  {name:<w$}"));
    }
    out.push_str(header.trim_end());
    out.push('\n');
    for (i, key) in keys.iter().enumerate() {
        let mut line = format!("  {key:<key_w$}");
        for (vs, w) in values.iter().zip(&widths) {
            line.push_str(&format!("  {:<w$}", vs[i]));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("\nWHAT THE OPTIONS MEAN\n");
    for def in RULES_OPTIONS {
        out.push_str(&format!("  {:<key_w$}  {}\n", def.key, def.help));
    }
    out.push_str(
        "\nRULES SPECS\n  \
         A rules spec is PRESET[:KEY=VALUE,...] with no spaces, for example\n    \
         abapa                         the international rules\n    \
         abapa:max_plies=200           ... stopped after 200 plies\n    \
         oware:players=4               four-player Owaré (same as oware4)\n    \
         wari:grand_slam=capture_all   Wari where a grand slam takes everything\n  \
         Specs are written back in their shortest form: only options that differ from the preset.\n  \
         Run `awale rules SPEC` to see every choice a spec makes.\n",
    );
    out
}

/// One rule set's choices.
fn describe(rules: &Rules) -> String {
    let mut out = format!("{rules}: {}\n\n", rules.preset.summary());
    let options = rules.options();
    let key_w = options.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let val_w = options.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
    for (k, v) in &options {
        let help = find_option(k).map_or("", |def| def.help);
        out.push_str(&format!("  {k:<key_w$}  {v:<val_w$}  {help}\n"));
    }
    out.push_str(&format!(
        "\n  {} players x {} houses, {} seeds in play\n",
        rules.players,
        rules.houses,
        rules.total_seeds()
    ));
    out
}

/// Runs `awale rules`.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    match args.preset {
        None => out!("{}", overview()),
        Some(spec) => {
            let rules: Rules = spec.parse()?;
            out!("{}", describe(&rules));
        }
    }
    Ok(())
}
