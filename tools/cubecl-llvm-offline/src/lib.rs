//! Offline stand-in for `cubecl-llvm` 0.11.3 (see Cargo.toml): the LLVM backend is absent, so
//! `PlironCompiler::compile` returns an error. Build cubecl-cuda with its `cpp` feature so the
//! default backend is NVRTC and this compiler is never asked.
pub mod nvptx {
    pub mod ptx_version;
}
pub mod shared {
    pub mod lowered_features {
        use cubecl_core::ir::DeviceProperties;
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum GpuTarget {
            Nvptx,
        }
        pub fn restrict_features(_props: &mut DeviceProperties, _target: GpuTarget) {}
    }
}

use cubecl_core::ir::nvidia::SmArch;
use cubecl_core::prelude::KernelDefinition;
use cubecl_environment::backtrace::BackTrace;
use cubecl_runtime::compiler::{CompilationError, Compiler};
use cubecl_runtime::kernel::BufferIOAttr;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LlvmTarget {
    #[default]
    Cpu,
    Nvptx,
}

#[derive(Clone, Debug, Default)]
pub struct PlironCompiler {
    pub target: LlvmTarget,
}

#[derive(Clone, Debug, Default)]
pub struct PlironOptions {
    pub cpu_buffer_alignment: Option<u32>,
    pub arch: Option<()>,
    pub sm_arch: Option<SmArch>,
    pub ptx_version: Option<nvptx::ptx_version::PtxVersion>,
    pub grid_constants: bool,
}

#[derive(Clone, Debug)]
pub struct NvptxModule {
    pub ptx: Vec<core::ffi::c_char>,
    pub entrypoint: String,
    pub ir: String,
    pub shared_memory_size: usize,
    pub io: Vec<BufferIOAttr>,
}

#[derive(Clone, Debug)]
pub enum PlironArtifact {
    NvptxCode(NvptxModule),
    Unavailable,
}

impl core::fmt::Display for PlironArtifact {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PlironArtifact::NvptxCode(m) => write!(f, "{}", m.ir),
            PlironArtifact::Unavailable => write!(f, "<no LLVM>"),
        }
    }
}

impl Compiler for PlironCompiler {
    type Representation = PlironArtifact;
    type CompilationOptions = PlironOptions;

    fn compile(
        &mut self,
        _kernel: KernelDefinition,
        _options: &Self::CompilationOptions,
    ) -> Result<Self::Representation, CompilationError> {
        Err(CompilationError::Validation {
            reason: "this build has no LLVM backend (offline cubecl-llvm stand-in); use cubecl-cuda's `cpp` (NVRTC) backend".into(),
            backtrace: BackTrace::capture(),
        })
    }

    fn extension(&self) -> &'static str {
        "ll"
    }

    fn lang_tag(&self) -> &'static str {
        "llvm"
    }
}
