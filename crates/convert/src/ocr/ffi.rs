//! libtesseract's C API (`tesseract/capi.h`), loaded at run time with `libloading`. Every `unsafe`
//! of the OCR module is in this file.
//!
//! The library is loaded once per path and never unloaded: libtesseract may start OpenMP worker
//! threads (libgomp, one of its dependencies), which must not outlive the code they run. Each
//! [`Engine`] owns one `TessBaseAPI` handle.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// `TessBaseAPI *`.
type Handle = *mut c_void;

/// `PSM_AUTO` of `TessPageSegMode`: fully automatic page segmentation, without orientation and
/// script detection.
const PSM_AUTO: c_int = 3;

/// The largest width or height accepted, in pixels (a US-letter page at 1,800 dpi is 15,300 × 19,800).
pub(super) const MAX_SIDE: u32 = 20_000;

/// The C functions used, resolved from a loaded library. The signatures are those of Tesseract 4
/// and 5 (`BOOL` is `int`, enums are `int`).
pub(super) struct Api {
    version: unsafe extern "C" fn() -> *const c_char,
    create: unsafe extern "C" fn() -> Handle,
    delete: unsafe extern "C" fn(Handle),
    init3: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    set_variable: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    set_page_seg_mode: unsafe extern "C" fn(Handle, c_int),
    set_image: unsafe extern "C" fn(Handle, *const u8, c_int, c_int, c_int, c_int),
    set_source_resolution: unsafe extern "C" fn(Handle, c_int),
    recognize: unsafe extern "C" fn(Handle, *mut c_void) -> c_int,
    get_tsv_text: unsafe extern "C" fn(Handle, c_int) -> *mut c_char,
    delete_text: unsafe extern "C" fn(*const c_char),
    clear: unsafe extern "C" fn(Handle),
    end: unsafe extern "C" fn(Handle),
    /// OpenMP's `omp_get_max_active_levels` and `omp_set_max_active_levels`, where libtesseract
    /// was built with OpenMP (libgomp is then among its dependencies).
    omp_levels: Option<(unsafe extern "C" fn() -> c_int, unsafe extern "C" fn(c_int))>,
    /// Whether an engine has set the process-wide `debug_file` parameter yet.
    quiet: AtomicBool,
    /// Keeps the function pointers above valid; never dropped (the `Api` is leaked).
    _library: libloading::Library,
}

/// Libraries loaded so far, by the name or path they were loaded from.
static LOADED: Mutex<Option<HashMap<String, &'static Api>>> = Mutex::new(None);

/// Held while an engine starts: starting is rare and slow enough (loading the language model) that
/// running starts one at a time costs nothing, and no two ever set Tesseract's parameters at once.
static START_LOCK: Mutex<()> = Mutex::new(());

impl Api {
    /// Loads libtesseract from `name` (a path, or a bare file name the system loader searches for),
    /// or returns the library already loaded from it. The error is the loader's message.
    pub(super) fn load(name: &str) -> Result<&'static Api, String> {
        let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(api) = loaded.get_or_insert_with(HashMap::new).get(name) {
            return Ok(api);
        }
        // SAFETY: loading a shared library runs its initialisers. libtesseract's are C++ static
        // constructors that only set up its parameter tables; the same is true of any library the
        // user names as a Tesseract build. No other thread can be loading it through this module.
        let library = unsafe { libloading::Library::new(name) }.map_err(loader_error)?;
        macro_rules! function {
            ($name:literal) => {
                // SAFETY: the symbol is a function of Tesseract's C API, and the type it is read as
                // is its declaration in capi.h (Tesseract 4 and 5); the pointer is copied out of
                // the `Symbol` and stays valid because the library is kept loaded for ever.
                *unsafe { library.get($name) }.map_err(|e| format!("{name}: {}", loader_error(e)))?
            };
        }
        macro_rules! optional {
            ($name:literal) => {
                // SAFETY: as for `function!`; the OpenMP functions are declared so in omp.h.
                unsafe { library.get($name) }.ok().map(|f| *f)
            };
        }
        let api = Api {
            version: function!(c"TessVersion"),
            create: function!(c"TessBaseAPICreate"),
            delete: function!(c"TessBaseAPIDelete"),
            init3: function!(c"TessBaseAPIInit3"),
            set_variable: function!(c"TessBaseAPISetVariable"),
            set_page_seg_mode: function!(c"TessBaseAPISetPageSegMode"),
            set_image: function!(c"TessBaseAPISetImage"),
            set_source_resolution: function!(c"TessBaseAPISetSourceResolution"),
            recognize: function!(c"TessBaseAPIRecognize"),
            get_tsv_text: function!(c"TessBaseAPIGetTsvText"),
            delete_text: function!(c"TessDeleteText"),
            clear: function!(c"TessBaseAPIClear"),
            end: function!(c"TessBaseAPIEnd"),
            omp_levels: optional!(c"omp_get_max_active_levels").zip(optional!(c"omp_set_max_active_levels")),
            quiet: AtomicBool::new(false),
            _library: library,
        };
        let api: &'static Api = Box::leak(Box::new(api));
        loaded.get_or_insert_with(HashMap::new).insert(name.to_string(), api);
        Ok(api)
    }

    /// The library's version, e.g. "5.3.0".
    pub(super) fn version(&self) -> String {
        // SAFETY: TessVersion takes no argument and returns a pointer to a static NUL-terminated
        // string (or, defensively, null, which is checked).
        let v = unsafe { (self.version)() };
        if v.is_null() {
            return String::new();
        }
        // SAFETY: `v` is non-null and points to a static NUL-terminated string owned by the library.
        unsafe { CStr::from_ptr(v) }.to_string_lossy().into_owned()
    }
}

/// The loader's message with its cause ("dlopen failed: libx.so: cannot open shared object file…").
fn loader_error(e: libloading::Error) -> String {
    match std::error::Error::source(&e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

/// An 8-bit grayscale image whose buffer has been checked to hold every row it claims.
pub(super) struct GrayImage<'a> {
    pixels: &'a [u8],
    width: c_int,
    height: c_int,
    stride: c_int,
}

impl<'a> GrayImage<'a> {
    /// Checks the dimensions against the buffer: width and height in 1..=[`MAX_SIDE`],
    /// `stride >= width`, and `stride * height` bytes present.
    pub(super) fn new(pixels: &'a [u8], width: u32, height: u32, stride: u32) -> Result<Self, String> {
        if width == 0 || height == 0 {
            return Err(format!("the image is empty ({width} × {height} pixels)"));
        }
        if width > MAX_SIDE || height > MAX_SIDE {
            return Err(format!(
                "the image is too large ({width} × {height} pixels; at most {MAX_SIDE} a side)"
            ));
        }
        if stride < width {
            return Err(format!("a row of {stride} bytes cannot hold {width} pixels"));
        }
        let needed = u64::from(stride) * u64::from(height);
        if (pixels.len() as u64) < needed {
            return Err(format!("{} bytes of pixels, {needed} needed ({stride} × {height})", pixels.len()));
        }
        let int = |v: u32| c_int::try_from(v).map_err(|_| format!("{v} does not fit a C int"));
        Ok(GrayImage { pixels, width: int(width)?, height: int(height)?, stride: int(stride)? })
    }
}

/// One `TessBaseAPI`, initialised with a language.
pub(super) struct Engine {
    api: &'static Api,
    handle: NonNull<c_void>,
    /// Whether Tesseract's OpenMP parallel regions run on the calling thread alone.
    serial: bool,
}

// SAFETY: a TessBaseAPI keeps no tie to the thread that created it (libtesseract 5.3 has no
// thread-local variables; OpenMP keeps its settings and pool per calling thread), so it may be used
// and destroyed on another thread. `Engine` is deliberately not `Sync`: the handle's calls mutate
// it and must never run at the same time, which `&mut self` on `recognize_tsv` (and `Drop`)
// guarantees.
unsafe impl Send for Engine {}

impl Engine {
    /// Creates a handle, silences Tesseract's messages, loads `language` from `tessdata` (the folder
    /// holding the `.traineddata` files), sets automatic page segmentation and `variables`.
    /// `serial`: recognise on the calling thread only, without OpenMP worker threads.
    pub(super) fn start(
        api: &'static Api,
        tessdata: &CStr,
        language: &CStr,
        variables: &[(&CStr, &CStr)],
        serial: bool,
    ) -> Result<Engine, String> {
        let _one_at_a_time = START_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: TessBaseAPICreate takes nothing and returns a new handle or null (checked).
        let handle = NonNull::new(unsafe { (api.create)() }).ok_or("Tesseract could not create an engine")?;
        // From here on, dropping `engine` ends and deletes the handle.
        let engine = Engine { api, handle, serial };
        let h = handle.as_ptr();
        // Tesseract's messages go to `debug_file`, a process-wide parameter: the first engine sets
        // it, before its Init, so that a missing or bad language file prints nothing either. (Once
        // only: other engines may be reading it while they recognise.)
        if !api.quiet.load(Ordering::Acquire) {
            engine.set_variable(c"debug_file", c"/dev/null")?;
            api.quiet.store(true, Ordering::Release);
        }
        // SAFETY: `h` is a live handle; both strings are NUL-terminated and outlive the call, which
        // copies them.
        let rc = unsafe { (api.init3)(h, tessdata.as_ptr(), language.as_ptr()) };
        if rc != 0 {
            return Err(format!(
                "Tesseract could not load the language {:?} from {} (code {rc})",
                language.to_string_lossy(),
                tessdata.to_string_lossy()
            ));
        }
        // SAFETY: `h` is a live, initialised handle; PSM_AUTO is a valid TessPageSegMode.
        unsafe { (api.set_page_seg_mode)(h, PSM_AUTO) };
        for (name, value) in variables {
            engine.set_variable(name, value)?;
        }
        Ok(engine)
    }

    fn set_variable(&self, name: &CStr, value: &CStr) -> Result<(), String> {
        // SAFETY: the handle is live; both strings are NUL-terminated and outlive the call, which
        // copies them (it returns false for an unknown name).
        let ok = unsafe { (self.api.set_variable)(self.handle.as_ptr(), name.as_ptr(), value.as_ptr()) };
        if ok == 0 {
            return Err(format!(
                "Tesseract refused the setting {}={}",
                name.to_string_lossy(),
                value.to_string_lossy()
            ));
        }
        Ok(())
    }

    /// Recognises `image`, scanned at `dpi`, and returns Tesseract's TSV output for it.
    pub(super) fn recognize_tsv(&mut self, image: &GrayImage<'_>, dpi: u32) -> Result<String, String> {
        let (api, h) = (self.api, self.handle.as_ptr());
        let dpi = c_int::try_from(dpi).map_err(|_| format!("{dpi} dpi does not fit a C int"))?;
        // SAFETY: `h` is a live, initialised handle used by this thread only (`&mut self`). The
        // buffer holds `stride * height` bytes with `stride >= width` (checked by GrayImage::new),
        // one byte a pixel, as SetImage reads them; SetImage copies the pixels into its own image,
        // and the buffer outlives the call anyway.
        unsafe {
            (api.set_image)(h, image.pixels.as_ptr(), image.width, image.height, 1, image.stride);
            (api.set_source_resolution)(h, dpi);
        }
        // With no active parallel level allowed, each of Tesseract's OpenMP regions gets a team of
        // one thread: this one. The setting is put back afterwards.
        let restore = match api.omp_levels {
            Some((get, set)) if self.serial => {
                // SAFETY: OpenMP runtime calls without pointers, on this thread's own settings.
                let old = unsafe { get() };
                // SAFETY: as above; 0 is a valid number of levels.
                unsafe { set(0) };
                Some((set, old))
            }
            _ => None,
        };
        // SAFETY: `h` holds an image; a null monitor is allowed (no progress, no cancel).
        let rc = unsafe { (api.recognize)(h, std::ptr::null_mut()) };
        let result = if rc != 0 {
            Err(format!("Tesseract could not recognise the image (code {rc})"))
        } else {
            // SAFETY: `h` has recognised a page; GetTsvText returns a new NUL-terminated string
            // (or null, checked) for page number 0, which we own.
            let text = unsafe { (api.get_tsv_text)(h, 0) };
            if text.is_null() {
                Err("Tesseract returned no text".to_string())
            } else {
                // SAFETY: `text` is non-null, NUL-terminated and not yet freed.
                let tsv = unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned();
                // SAFETY: `text` came from GetTsvText, is no longer borrowed (copied above) and is
                // freed once, by the library's own deallocator for it.
                unsafe { (api.delete_text)(text) };
                Ok(tsv)
            }
        };
        // SAFETY: `h` is live; Clear frees the image and the results, keeping the language loaded.
        unsafe { (api.clear)(h) };
        if let Some((set, old)) = restore {
            // SAFETY: an OpenMP runtime call without pointers; `old` came from the runtime itself.
            unsafe { set(old) };
        }
        result
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let h = self.handle.as_ptr();
        // SAFETY: `h` was returned by TessBaseAPICreate and is ended and deleted exactly once,
        // here; nothing can use it afterwards. End is harmless on a handle whose Init failed.
        unsafe {
            (self.api.end)(h);
            (self.api.delete)(h);
        }
    }
}
