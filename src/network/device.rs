//! The device a network plays on: burn's flex CPU backend by default; the first CUDA GPU under
//! the cargo feature `train-cuda`, the default wgpu adapter under `train-wgpu` (the trainer adds
//! autodiff to it: `crate::train::train_device`).

/// The device inference (self-play, agents) runs on: burn's flex CPU backend without autodiff by
/// default; the first CUDA GPU under the cargo feature `train-cuda`, the default wgpu adapter
/// under `train-wgpu`.
#[allow(clippy::let_and_return)] // one `let` per backend, each behind its feature
pub fn inference_device() -> burn::tensor::Device {
    #[cfg(feature = "train-cuda")]
    let device = burn::tensor::Device::cuda(0);
    #[cfg(all(feature = "train-wgpu", not(feature = "train-cuda")))]
    let device = burn::tensor::Device::wgpu(Default::default());
    #[cfg(not(any(feature = "train-wgpu", feature = "train-cuda")))]
    let device = burn::tensor::Device::flex();
    device
}
