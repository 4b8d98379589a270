//! A network out of the trainer and back in: a [safetensors] file that PyTorch (and anything
//! else that reads safetensors) loads, written and read by burn's own store.
//!
//! The tensors are named and laid out as the `torch.nn.Linear` layers of `awale.torch`'s module
//! (`trunk.0.weight` `[out, in]`, `trunk.0.bias`, …, `policy.*`, `value.*`, `score.*`): burn's
//! `BurnToPyTorchAdapter` transposes the weights on the way out, `PyTorchToBurnAdapter` on the
//! way back. The file's metadata holds two entries besides burn's own:
//!
//! - `awale`: a JSON [`NetworkHeader`] (format, version, rules, encoding, shape and the input
//!   scales), enough for a reader that knows nothing of the trainer;
//! - `config`: the training config (TOML), so that the file plays wherever a checkpoint does
//!   (`nn:path=net.safetensors`, `awale.Network`) with the same search settings;
//! - `play` (when the network has them): its JSON [`PlayDefaults`], the simulations and search
//!   rule the `nn` agent uses unless its spec says otherwise, so that a baseline exported by
//!   `awale baseline export` plays as `nn:baseline=NAME` does. A file without it plays with
//!   [`NetCore::play`]'s defaults (64 simulations, the config's `play_kind`).
//!
//! A file is checked before burn sees it: every tensor named, `f32` and of the shape the header
//! and config give, nothing missing or extra; anything else is a [`TrainError::Model`] that says
//! which tensor and why.
//!
//! [safetensors]: https://huggingface.co/docs/safetensors
//!
//! ```
//! use awale::network::export::{from_safetensors, header, to_safetensors};
//! use awale::network::NetCore;
//! use awale::az::TrainConfig;
//! let core = NetCore::fresh(&TrainConfig::tiny()).unwrap();
//! let bytes = to_safetensors(&core).unwrap();
//! let back = from_safetensors(&bytes).unwrap();
//! assert_eq!(back.net.param_values(), core.net.param_values());
//! assert_eq!(header(&core).encoding, core.encoding.to_string());
//! // Not a network: refused with the reason.
//! assert!(from_safetensors(b"not a network").is_err());
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use burn::store::{BurnToPyTorchAdapter, ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore};
use serde::{Deserialize, Serialize};

use super::model::load_model;
use super::model::{NetShape, PolicyValueNet};
use super::net_core::{NetCore, PlayDefaults};
use crate::az::checkpoint::write_atomic;
use crate::az::checkpoint::Checkpoint;
use crate::az::{TrainConfig, TrainError, TrainResult};
use crate::batch::{input_scale, ObsEncoding};
use crate::rules::Rules;

/// The `format` of [`NetworkHeader`].
pub const FORMAT: &str = "awale-network";
/// The header's version: a reader refuses a file of a later version.
pub const FORMAT_VERSION: u32 = 1;
/// The metadata key of the JSON header.
pub const HEADER_KEY: &str = "awale";
/// The metadata key of the training config (TOML).
pub const CONFIG_KEY: &str = "config";
/// The metadata key of the play settings (JSON [`PlayDefaults`]), present when the network has
/// them.
pub const PLAY_KEY: &str = "play";
/// The largest header a file may declare (the JSON before the tensors), 16 MiB.
const MAX_HEADER: u64 = 16 << 20;

/// What a safetensors network file says of itself (its `awale` metadata entry, JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkHeader {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`] of the writer.
    pub version: u32,
    /// The rules spec the network plays (`abapa`, `oware:players=3`).
    pub rules: String,
    /// Its observation encoding (`compact`, `onehot:16`, `thermometer:16`).
    pub encoding: String,
    /// Input features: the encoding's size.
    pub input: usize,
    /// Hidden widths of the ReLU trunk.
    pub hidden: Vec<usize>,
    /// Policy logits: the mover's houses.
    pub actions: usize,
    /// Value outputs: 1 for two players (the mover's), else one per player, mover first.
    pub values: usize,
    /// Per-feature scales applied to the encoding before the network (the input is
    /// `encoding × input_scale`).
    pub input_scale: Vec<f32>,
}

/// The header of `core`'s network.
pub fn header(core: &NetCore) -> NetworkHeader {
    header_for(&core.rules, core.encoding, &core.config.network.hidden)
}

/// The header of a network of `rules` under `encoding` with hidden widths `hidden`.
fn header_for(rules: &Rules, encoding: ObsEncoding, hidden: &[usize]) -> NetworkHeader {
    let shape = NetShape::new(rules, encoding, hidden);
    NetworkHeader {
        format: FORMAT.into(),
        version: FORMAT_VERSION,
        rules: rules.to_string(),
        encoding: encoding.to_string(),
        input: shape.input,
        hidden: shape.hidden,
        actions: shape.actions,
        values: shape.values,
        input_scale: input_scale(rules, encoding),
    }
}

/// The header and the config text of a new network of `config` (its rules, observation and
/// hidden widths; checked first): what a file written from another framework carries so that
/// [`from_safetensors`] loads it (`awale.torch.new_network`).
pub fn template(config: &TrainConfig) -> TrainResult<(NetworkHeader, String)> {
    config.validate()?;
    let header = header_for(
        &config.rules()?,
        config.observation()?,
        &config.network.hidden,
    );
    Ok((header, config.to_toml()))
}

/// `rules encoding input→[hidden]→actions+values`, for messages.
fn summary(h: &NetworkHeader) -> String {
    format!(
        "{} {} {}→{:?}→{}+{}",
        h.rules, h.encoding, h.input, h.hidden, h.actions, h.values
    )
}

/// The safetensors bytes of `core`'s network (PyTorch's layout, header and config in the
/// metadata).
pub fn to_safetensors(core: &NetCore) -> TrainResult<Vec<u8>> {
    let head = serde_json::to_string(&header(core))
        .map_err(|e| TrainError::Model(format!("writing the header: {e}")))?;
    let mut store = SafetensorsStore::from_bytes(None)
        .with_to_adapter(BurnToPyTorchAdapter)
        .metadata(HEADER_KEY, head)
        .metadata(CONFIG_KEY, core.config.to_toml());
    if let Some(play) = &core.play_settings {
        let text = serde_json::to_string(play)
            .map_err(|e| TrainError::Model(format!("writing the play settings: {e}")))?;
        store = store.metadata(PLAY_KEY, text);
    }
    core.net
        .save_into(&mut store)
        .map_err(|e| TrainError::Model(format!("writing the network: {e}")))?;
    store
        .get_bytes()
        .map_err(|e| TrainError::Model(format!("writing the network: {e}")))
}

/// Writes `core`'s network to `path` as safetensors (atomically).
pub fn write_safetensors(core: &NetCore, path: &Path) -> TrainResult<()> {
    write_atomic(path, &to_safetensors(core)?)
}

/// Whether `bytes` look like a safetensors file (a little-endian header length, then JSON)
/// rather than a checkpoint.
pub fn is_safetensors(bytes: &[u8]) -> bool {
    bytes.len() > 8 && bytes[8] == b'{' && &bytes[..8] != crate::az::checkpoint::MAGIC
}

/// The network of a safetensors file written by [`to_safetensors`] (or by `awale.torch` from
/// weights trained in PyTorch), on the inference device, checked tensor by tensor.
pub fn from_safetensors(bytes: &[u8]) -> TrainResult<NetCore> {
    let bad = |m: String| TrainError::Model(format!("not an awale network file: {m}"));
    if bytes.len() < 8 {
        return Err(bad("shorter than a safetensors header".into()));
    }
    let declared = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    if declared > MAX_HEADER || declared > bytes.len() as u64 - 8 {
        return Err(bad(format!(
            "its header claims {declared} bytes; the file has {}",
            bytes.len()
        )));
    }
    let (_, meta) =
        safetensors::SafeTensors::read_metadata(bytes).map_err(|e| bad(format!("{e}")))?;
    let entries = meta.metadata().clone().unwrap_or_default();
    let head_text = entries
        .get(HEADER_KEY)
        .ok_or_else(|| bad(format!("no '{HEADER_KEY}' entry in its metadata")))?;
    let head: NetworkHeader =
        serde_json::from_str(head_text).map_err(|e| bad(format!("its header: {e}")))?;
    if head.format != FORMAT {
        return Err(bad(format!("format '{}', not '{FORMAT}'", head.format)));
    }
    if head.version > FORMAT_VERSION {
        return Err(bad(format!(
            "version {} is newer than this build reads ({FORMAT_VERSION})",
            head.version
        )));
    }
    let config_text = entries
        .get(CONFIG_KEY)
        .ok_or_else(|| bad(format!("no '{CONFIG_KEY}' entry in its metadata")))?;
    let config = TrainConfig::from_toml_str(config_text)?;
    config.validate()?;
    let play = entries
        .get(PLAY_KEY)
        .map(|text| play_settings(text).map_err(|e| bad(format!("its play settings: {e}"))))
        .transpose()?;
    let rules = config.rules()?;
    let encoding = config.observation()?;
    let want = header_for(&rules, encoding, &config.network.hidden);
    let have = NetworkHeader {
        version: FORMAT_VERSION,
        ..head
    };
    if have != want {
        let scales = if have.input_scale != want.input_scale {
            " (input_scale)"
        } else {
            ""
        };
        return Err(bad(format!(
            "its header ({}) and its config ({}) disagree{scales}",
            summary(&have),
            summary(&want)
        )));
    }
    let shape = NetShape::new(&rules, encoding, &config.network.hidden);
    check_tensors(&meta, &shape).map_err(bad)?;
    let device = super::inference_device();
    let mut net = PolicyValueNet::from_config(&config, &device)?;
    let mut store =
        SafetensorsStore::from_bytes(Some(bytes.to_vec())).with_from_adapter(PyTorchToBurnAdapter);
    let applied = net.load_from(&mut store).map_err(|e| bad(format!("{e}")))?;
    if !applied.is_success() || !applied.missing.is_empty() {
        return Err(bad(format!("{applied}")));
    }
    Ok(NetCore::new(&net, &config)?.with_play(play))
}

/// The play settings of a file's `play` entry, checked (simulations from 1 to
/// [`crate::search::MAX_SIMS`]).
fn play_settings(text: &str) -> Result<PlayDefaults, String> {
    let play: PlayDefaults = serde_json::from_str(text).map_err(|e| e.to_string())?;
    crate::search::check_sims(u64::from(play.sims)).map_err(|e| format!("sims: {e}"))?;
    Ok(play)
}

/// The play settings a network file carries (its `play` entry), read from its header alone
/// (not its weights): None for a checkpoint, a generation or a safetensors network without
/// them. For a caller that needs them before building an agent (the server checks the
/// simulations against its cap).
pub fn play_of_file(path: &Path) -> TrainResult<Option<PlayDefaults>> {
    use std::io::Read;
    let bad = |m: String| TrainError::Model(format!("{}: {m}", path.display()));
    let mut f = std::fs::File::open(path).map_err(|e| TrainError::io(path, e))?;
    let mut head = [0u8; 9];
    if f.read_exact(&mut head).is_err() || !is_safetensors(&head) {
        return Ok(None);
    }
    let declared = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
    if declared > MAX_HEADER {
        return Err(bad(format!("its header claims {declared} bytes")));
    }
    let mut json = vec![head[8]];
    (&mut f)
        .take(declared.saturating_sub(1))
        .read_to_end(&mut json)
        .map_err(|e| TrainError::io(path, e))?;
    #[derive(Deserialize)]
    struct Header {
        #[serde(rename = "__metadata__", default)]
        metadata: std::collections::HashMap<String, String>,
    }
    let header: Header = serde_json::from_slice(&json)
        .map_err(|e| bad(format!("not an awale network file: {e}")))?;
    header
        .metadata
        .get(PLAY_KEY)
        .map(|text| play_settings(text).map_err(|e| bad(format!("its play settings: {e}"))))
        .transpose()
}

/// Every tensor of `shape`'s network in PyTorch's layout: name → shape.
pub fn expected_tensors(shape: &NetShape) -> BTreeMap<String, Vec<usize>> {
    let mut out = BTreeMap::new();
    let mut d = shape.input;
    for (i, &h) in shape.hidden.iter().enumerate() {
        out.insert(format!("trunk.{i}.weight"), vec![h, d]);
        out.insert(format!("trunk.{i}.bias"), vec![h]);
        d = h;
    }
    for (name, n) in [
        ("policy", shape.actions),
        ("value", shape.values),
        ("score", 1),
    ] {
        out.insert(format!("{name}.weight"), vec![n, d]);
        out.insert(format!("{name}.bias"), vec![n]);
    }
    out
}

/// Refuses a file whose tensors are not exactly those of `shape` (names, `f32`, shapes).
fn check_tensors(meta: &safetensors::tensor::Metadata, shape: &NetShape) -> Result<(), String> {
    let want = expected_tensors(shape);
    let have = meta.tensors();
    for (name, dims) in &want {
        let info = have
            .get(name)
            .ok_or_else(|| format!("tensor '{name}' is missing"))?;
        if info.dtype != safetensors::Dtype::F32 {
            return Err(format!("tensor '{name}' is {:?}, not F32", info.dtype));
        }
        if &info.shape != dims {
            return Err(format!(
                "tensor '{name}' has shape {:?}; the network needs {dims:?}",
                info.shape
            ));
        }
    }
    if let Some(extra) = have.keys().find(|k| !want.contains_key(k.as_str())) {
        return Err(format!("tensor '{extra}' is not part of the network"));
    }
    Ok(())
}

impl NetCore {
    /// Loads the network of a file: a checkpoint or generation of `awale train`, or a
    /// safetensors network ((this module)).
    pub fn load(path: &Path) -> TrainResult<NetCore> {
        let bytes = std::fs::read(path).map_err(|e| TrainError::io(path, e))?;
        if is_safetensors(&bytes) {
            return from_safetensors(&bytes);
        }
        let ckpt = Checkpoint::from_bytes(&bytes)?;
        let device = super::inference_device();
        let net = load_model(&ckpt.config, &ckpt.model, &device)?;
        NetCore::new(&net, &ckpt.config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> NetCore {
        NetCore::fresh(&TrainConfig::tiny()).unwrap()
    }

    fn outputs(core: &NetCore, x: &[f32], batch: usize) -> (Vec<f32>, Vec<f32>) {
        use crate::az::Network;
        let (mut l, mut v) = (Vec::new(), Vec::new());
        core.infer(x, batch, &mut l, &mut v);
        (l, v)
    }

    #[test]
    fn a_network_comes_back_with_the_same_outputs() {
        let core = tiny();
        let back = from_safetensors(&to_safetensors(&core).unwrap()).unwrap();
        let dim = core.scale.len();
        let x: Vec<f32> = (0..3 * dim).map(|i| (i % 7) as f32 * 0.1).collect();
        assert_eq!(outputs(&core, &x, 3), outputs(&back, &x, 3));
        assert_eq!(back.config, core.config);
    }

    #[test]
    fn weights_are_in_pytorch_layout() {
        let core = tiny();
        let bytes = to_safetensors(&core).unwrap();
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        let w = st.tensor("trunk.0.weight").unwrap();
        let h = core.config.network.hidden[0];
        assert_eq!(w.shape(), &[h, core.scale.len()]);
        // burn's weight is [in, out]: element (i, o) of burn is (o, i) of the file.
        let burn_w: Vec<f32> = core.net.param_values()[..h * core.scale.len()].to_vec();
        let file: Vec<f32> = w
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let d = core.scale.len();
        for (i, o) in [(0, 0), (1, 0), (0, 1), (d - 1, h - 1)] {
            assert_eq!(burn_w[i * h + o], file[o * d + i]);
        }
    }

    /// Rewrites the file's tensors through `edit` (name → (shape, values)), keeping metadata.
    fn rewrite(
        bytes: &[u8],
        edit: impl Fn(&mut BTreeMap<String, (Vec<usize>, Vec<f32>)>),
        meta_edit: impl Fn(&mut std::collections::HashMap<String, String>),
    ) -> Vec<u8> {
        let st = safetensors::SafeTensors::deserialize(bytes).unwrap();
        let (_, meta) = safetensors::SafeTensors::read_metadata(bytes).unwrap();
        let mut tensors: BTreeMap<String, (Vec<usize>, Vec<f32>)> = st
            .tensors()
            .into_iter()
            .map(|(n, t)| {
                let v = t
                    .data()
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                    .collect();
                (n, (t.shape().to_vec(), v))
            })
            .collect();
        edit(&mut tensors);
        let mut m = meta.metadata().clone().unwrap_or_default();
        meta_edit(&mut m);
        let raw: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
            .into_iter()
            .map(|(n, (s, v))| (n, s, v.iter().flat_map(|x| x.to_le_bytes()).collect()))
            .collect();
        let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = raw
            .iter()
            .map(|(n, s, b)| {
                (
                    n.clone(),
                    safetensors::tensor::TensorView::new(safetensors::Dtype::F32, s.clone(), b)
                        .unwrap(),
                )
            })
            .collect();
        safetensors::serialize(views, Some(m)).unwrap()
    }

    #[test]
    fn damaged_files_are_refused_with_the_reason() {
        let core = tiny();
        let good = to_safetensors(&core).unwrap();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                rewrite(&good, |t| drop(t.remove("policy.bias")), |_| {}),
                "'policy.bias' is missing",
            ),
            (
                rewrite(
                    &good,
                    |t| {
                        t.insert("extra.weight".into(), (vec![1], vec![0.0]));
                    },
                    |_| {},
                ),
                "'extra.weight' is not part",
            ),
            (
                rewrite(
                    &good,
                    |t| {
                        let (s, v) = t.get("trunk.0.weight").unwrap().clone();
                        t.insert("trunk.0.weight".into(), (vec![s[1], s[0]], v));
                    },
                    |_| {},
                ),
                "has shape",
            ),
            (
                rewrite(&good, |_| {}, |m| drop(m.remove(HEADER_KEY))),
                "no 'awale' entry",
            ),
            (
                rewrite(
                    &good,
                    |_| {},
                    |m| {
                        let h = m[HEADER_KEY].replace("\"version\":1", "\"version\":99");
                        m.insert(HEADER_KEY.into(), h);
                    },
                ),
                "newer",
            ),
            (
                rewrite(
                    &good,
                    |_| {},
                    |m| {
                        let c = m[CONFIG_KEY].replace("rules = \"abapa\"", "rules = \"wari\"");
                        m.insert(CONFIG_KEY.into(), c);
                    },
                ),
                "disagree",
            ),
            (good[..good.len() / 2].to_vec(), "not an awale network"),
            (vec![255; 64], "claims"),
        ];
        for (bytes, want) in cases {
            let e = from_safetensors(&bytes).unwrap_err().to_string();
            assert!(e.contains(want), "{e} (wanted '{want}')");
        }
    }

    /// Damaged files (bytes flipped, cut, spliced) are refused or load as a network of the
    /// right shape: never a panic (burn's loaders panic on some inputs; the checks above run
    /// first).
    #[test]
    fn mutated_files_never_panic() {
        use rand::{Rng, SeedableRng};
        let core = tiny();
        let good = to_safetensors(&core).unwrap();
        let header_end = 8 + u64::from_le_bytes(good[..8].try_into().unwrap()) as usize;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for i in 0..300 {
            let mut b = good.clone();
            match i % 3 {
                0 => {
                    // Flip bytes of the header (names, shapes, offsets, metadata).
                    for _ in 0..rng.random_range(1..4) {
                        let k = rng.random_range(0..header_end);
                        b[k] ^= 1 << rng.random_range(0..8);
                    }
                }
                1 => b.truncate(rng.random_range(0..good.len())),
                _ => {
                    let k = rng.random_range(8..header_end);
                    b.insert(k, rng.random());
                }
            }
            let r = std::panic::catch_unwind(|| from_safetensors(&b).map(|c| c.scale.len()));
            match r {
                Ok(Ok(dim)) => assert_eq!(dim, core.scale.len()),
                Ok(Err(e)) => assert!(!e.to_string().is_empty()),
                Err(_) => panic!("input {i} panicked"),
            }
        }
    }

    #[test]
    fn safetensors_and_checkpoints_are_told_apart() {
        let core = tiny();
        assert!(is_safetensors(&to_safetensors(&core).unwrap()));
        assert!(!is_safetensors(crate::az::checkpoint::MAGIC));
        assert!(!is_safetensors(b"AWALECKP{not json"));
    }
}
