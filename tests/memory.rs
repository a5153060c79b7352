//! What writing a printed module holds (issue 32): `print::write_ir_module` writes the text
//! as it is printed, so that a command's output is never held whole, and gives exactly what
//! `print_ir_module` gives. And what a lowered module holds per instruction. Memory is
//! counted by a global allocator that forwards to the system's; the tests run one at a time
//! (`ONE_AT_A_TIME`), so no other test allocates while one counts.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use hlo_layout::print::{
    ir_module_digest, print_ir_module, write_ir_module, write_ir_module_spilling,
};
use hlo_layout::syntax::pieces::TextPieces;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every method forwards to the system allocator with the same arguments; the
// counters are only read.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(pointer, layout)
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        // Counted as the new block before the old one goes, as a moving realloc holds both.
        grew(size);
        let moved = System.realloc(pointer, layout, size);
        LIVE.fetch_sub(layout.size(), Relaxed);
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The tests of this file, one at a time: the count of live bytes is the whole process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The most bytes live at once while `f` runs, beyond those live when it starts.
fn peak_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let start = LIVE.load(Relaxed);
    PEAK.store(start, Relaxed);
    let result = f();
    (result, PEAK.load(Relaxed).saturating_sub(start))
}

/// A module of `computations` called computations of `lines` instructions each, with
/// metadata as long as real dumps carry and an op name `longer` bytes longer, called in a
/// chain from the entry.
fn module_text(computations: usize, lines: usize, longer: usize) -> String {
    let metadata = format!(
        "metadata={{op_name=\"jit(train_step)/jvp(transformer)/while/body/layer_12/attention/softmax/add{}\" \
         source_file=\"/workspace/projects/language_model/src/model/transformer.py\" source_line=123}}",
        "_".repeat(longer)
    );
    let mut text = String::from("HloModule generated\n\n");
    for c in 0..computations {
        text.push_str(&format!(
            "%body.{c} (p.{c}: f32[8,128]) -> f32[8,128] {{\n  %p.{c} = f32[8,128]{{1,0}} parameter(0)\n"
        ));
        let mut last = format!("p.{c}");
        for i in 0..lines {
            let op = if i + 1 == lines { "ROOT " } else { "" };
            text.push_str(&format!(
                "  {op}%a.{c}.{i} = f32[8,128]{{1,0}} add(%{last}, %p.{c}), {metadata}\n"
            ));
            last = format!("a.{c}.{i}");
        }
        text.push_str("}\n\n");
    }
    text.push_str(
        "ENTRY %main (x: f32[8,128]) -> f32[8,128] {\n  %x = f32[8,128]{1,0} parameter(0)\n",
    );
    let mut last = "x".to_string();
    for c in 0..computations {
        let op = if c + 1 == computations { "ROOT " } else { "" };
        text.push_str(&format!(
            "  {op}%call.{c} = f32[8,128]{{1,0}} call(%{last}), to_apply=%body.{c}\n"
        ));
        last = format!("call.{c}");
    }
    text.push_str("}\n");
    text
}

#[test]
fn a_written_module_is_never_held_whole_and_is_what_print_gives() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Under `parallel::PRINT_MIN_INSTRUCTIONS` (each computation has a parameter too, and the
    // entry a call for each), so printed on this thread alone; the lines are long enough
    // for a text of 6 MiB.
    let computations = hlo_layout::parallel::PRINT_MIN_INSTRUCTIONS / 102 - 1;
    let longer = (6 << 20) / (computations * 100);
    let one_thread =
        hlo_layout::parse_module(&module_text(computations, 100, longer)).expect("parses");
    let (printed, printing) = peak_during(|| print_ir_module(&one_thread));
    let mut written = Vec::new();
    let ((), writing) = peak_during(|| {
        write_ir_module(&one_thread, &mut std::io::sink()).expect("a sink takes anything")
    });
    write_ir_module(&one_thread, &mut written).expect("a vector takes anything");
    assert_eq!(written, printed.as_bytes());
    // Printing holds the whole text; writing holds a chunk of it (and the printer's shape
    // texts), whatever the module's size.
    assert!(printed.len() > 4 << 20, "{} bytes printed", printed.len());
    assert!(printing >= printed.len(), "{printing} bytes held to print");
    assert!(
        writing < printed.len() / 2,
        "{writing} bytes held to write {} bytes",
        printed.len()
    );
    // The digest is the same for a module that prints the same, and held no more than
    // writing.
    let (digest, digesting) = peak_during(|| ir_module_digest(&one_thread));
    let again = hlo_layout::parse_module(&printed).expect("reads back");
    assert_eq!(ir_module_digest(&again), digest);
    assert_eq!(digest.0, printed.len() as u64);
    // Holding the second share whole, it took 44%.
    assert!(
        digesting < printed.len() / 3,
        "{digesting} bytes held to digest"
    );
    drop((one_thread, printed, written));

    // Shares of whole computations near even, over `parallel::PRINT_MIN_INSTRUCTIONS`: two
    // threads, whose second share is joined in order.
    let two_threads = hlo_layout::parse_module(&module_text(300, 100, 0)).expect("parses");
    let printed = print_ir_module(&two_threads);
    let mut written = Vec::new();
    write_ir_module(&two_threads, &mut written).expect("a vector takes anything");
    assert_eq!(written, printed.as_bytes());
    // Its digest holds neither share (only the printer's two chunk buffers, 3 MiB of room
    // whatever the size; holding the second share whole, 65% of this text), and tells a
    // changed module from the same one.
    let two_threads = hlo_layout::parse_module(&module_text(600, 100, 0)).expect("parses");
    let printed = print_ir_module(&two_threads);
    let (digest, digesting) = peak_during(|| ir_module_digest(&two_threads));
    assert!(
        digesting < printed.len() / 3,
        "{digesting} bytes held to digest {} bytes",
        printed.len()
    );
    let again = hlo_layout::parse_module(&printed).expect("reads back");
    assert_eq!(ir_module_digest(&again), digest);
    let changed =
        hlo_layout::parse_module(&printed.replacen(" add(", " subtract(", 1)).expect("reads back");
    assert_ne!(ir_module_digest(&changed), digest);
}

#[test]
fn spilling_holds_neither_share_and_writes_what_print_gives() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Two shares near even, each several MiB: the second is printed on the other thread.
    let module = hlo_layout::parse_module(&module_text(300, 100, 0)).expect("parses");
    let printed = print_ir_module(&module);
    assert!(printed.len() > 6 << 20, "{} bytes printed", printed.len());
    let path = std::env::temp_dir().join(format!("hlo-layout-spill-test-{}", std::process::id()));
    let mut spill = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .expect("a temporary file");
    let mut written = Vec::new();
    write_ir_module_spilling(&module, &mut written, &mut spill).expect("a vector takes anything");
    assert_eq!(written, printed.as_bytes());
    // Written again into the same file, as it is written from its start.
    written.clear();
    write_ir_module_spilling(&module, &mut written, &mut spill).expect("a vector takes anything");
    assert_eq!(written, printed.as_bytes());
    let ((), held) = peak_during(|| {
        write_ir_module_spilling(&module, &mut std::io::sink(), &mut spill)
            .expect("a sink takes anything")
    });
    let ((), held_without) = peak_during(|| {
        write_ir_module(&module, &mut std::io::sink()).expect("a sink takes anything")
    });
    let _ = std::fs::remove_file(&path);
    // A chunk of each share (and the printer's shape texts), not the second share whole,
    // which writing without a spill holds where the machine has a second CPU.
    assert!(
        held < printed.len() / 2,
        "{held} bytes held to write {} bytes",
        printed.len()
    );
    if std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
        assert!(
            held_without > printed.len() / 2,
            "{held_without} bytes held without a spill"
        );
    }
}

#[test]
fn a_spill_that_fills_up_is_given_up_and_the_text_is_whole() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let module = hlo_layout::parse_module(&module_text(300, 100, 0)).expect("parses");
    let printed = print_ir_module(&module);
    // No room, room for part of the second chunk, and room enough.
    for room in [0, (3 << 20) / 2, 64 << 20] {
        let mut spill = common::FullAfter {
            bytes: std::io::Cursor::new(Vec::new()),
            room,
        };
        let mut written = Vec::new();
        write_ir_module_spilling(&module, &mut written, &mut spill)
            .expect("a vector takes anything");
        assert!(
            written == printed.as_bytes(),
            "room for {room} bytes: the text differs"
        );
    }
}

/// `fmt` writes the formatted text through a spill as it prints it: formatting holds the
/// input and a chunk of output, not a formatted copy of the input beside it.
#[test]
fn formatting_through_a_spill_holds_no_formatted_copy() -> std::io::Result<()> {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = module_text(300, 100, 0);
    assert!(text.len() > 6 << 20, "{} bytes", text.len());
    let mut spill = tempfile::tempfile()?;
    let (formatted, held) =
        peak_during(|| hlo_layout::format_module_range_spilling(&text, 0..text.len(), &mut spill));
    let formatted = formatted.expect("formats");
    let (whole, held_whole) = peak_during(|| hlo_layout::format_module(&text));
    let whole = whole.expect("formats");
    assert!(
        held < text.len() / 3,
        "{held} bytes held to format {} bytes",
        text.len()
    );
    assert!(
        held_whole >= whole.len(),
        "{held_whole} bytes held to format whole"
    );
    let mut written = Vec::new();
    formatted.write_to(&mut spill, &mut written)?;
    assert!(written == whole.as_bytes(), "the spilled text differs");
    Ok(())
}

/// The commands that only lower their input read a large file (8 MiB or more) in pieces,
/// never whole (`src/cli/input.rs`): what they write and report is what they give for the
/// same text read whole from standard input.
#[test]
fn a_large_file_read_in_pieces_gives_what_its_whole_text_gives() -> std::io::Result<()> {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = module_text(3000, 12, 0);
    assert!(text.len() >= 8 << 20, "{} bytes", text.len());
    let directory = tempfile::tempdir()?;
    let input = directory.path().join("large.hlo");
    std::fs::write(&input, &text)?;
    let run = |args: &[&str], stdin: bool| run_command(&input, args, stdin);
    commands_give_what_the_whole_text_gives(&input)?;
    // `fmt` writes it through a spill, as it prints it.
    let formatted = hlo_layout::format_module(&text).expect("formats");
    assert!(run(&["fmt"], false)?.2 == formatted.as_bytes());
    // An error is reported with its place, read whole again.
    let bad = text.replacen("add(%p.2999", "ad(%p.2999", 1);
    std::fs::write(&input, &bad)?;
    let (ok, notes, _) = run(&["assign"], false)?;
    assert!(
        !ok && notes.contains("ad(%p.2999") && notes.contains("large.hlo:"),
        "{notes}"
    );
    let from_stdin = run(&["assign"], true)?.1;
    let named = from_stdin.replace("[-:", &format!("[{}:", input.to_string_lossy()));
    assert_eq!(notes, named);
    // `fmt` keeps an unknown opcode, and reads a file in pieces too, and whole once it
    // meets a syntax error.
    assert!(run(&["fmt"], false)?.0);
    std::fs::write(&input, text.replacen("add(%p.2999", "add(,%p.2999", 1))?;
    let (ok, fmt_notes, _) = run(&["fmt"], false)?;
    let fmt_from_stdin = run(&["fmt"], true)?.1;
    let named = fmt_from_stdin.replace("[-:", &format!("[{}:", input.to_string_lossy()));
    assert!(!ok && fmt_notes.contains("add(,%p.2999"), "{fmt_notes}");
    assert_eq!(fmt_notes, named);
    Ok(())
}

/// Runs `hlo-layout ARGS -o OUT` on `input`, named or as standard input: whether it
/// succeeded, what it reported and what it wrote.
fn run_command(
    input: &std::path::Path,
    args: &[&str],
    stdin: bool,
) -> std::io::Result<(bool, String, Vec<u8>)> {
    let output = input.with_extension("out");
    let _ = std::fs::remove_file(&output);
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hlo-layout"));
    command.args(args).arg("-o").arg(&output);
    if stdin {
        command.arg("-").stdin(std::fs::File::open(input)?);
    } else {
        command.arg(input);
    }
    let done = command.output()?;
    let written = std::fs::read(&output).unwrap_or_default();
    Ok((
        done.status.success(),
        String::from_utf8_lossy(&done.stderr).into_owned(),
        written,
    ))
}

/// The commands that only lower their input succeed on `input`, named (read in pieces when
/// it is large), and write and report what they give for it read whole from standard input.
fn commands_give_what_the_whole_text_gives(input: &std::path::Path) -> std::io::Result<()> {
    for args in [
        &["assign", "--report"][..],
        &["opt", "--passes", "dce,simplify-layout-ops"],
        &["stats"],
        &["fmt"],
    ] {
        let (ok, notes, written) = run_command(input, args, false)?;
        assert!(ok, "{args:?}: {notes}");
        assert!(!written.is_empty(), "{args:?} wrote nothing");
        assert_eq!(
            (ok, notes, written),
            run_command(input, args, true)?,
            "{args:?}"
        );
    }
    Ok(())
}

/// A large file whose one computation is longer than a piece is read in runs of its lines
/// (`TextPieces` cuts it before instruction lines): what the commands write and report is
/// what they give for the same text read whole from standard input.
#[test]
fn a_file_whose_computation_is_longer_than_a_piece_gives_what_its_whole_text_gives(
) -> std::io::Result<()> {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = long_computation_text(150_000);
    assert!(text.len() > 9 << 20, "{} bytes", text.len());
    let directory = tempfile::tempdir()?;
    let input = directory.path().join("long.hlo");
    std::fs::write(&input, &text)?;
    commands_give_what_the_whole_text_gives(&input)?;
    // An error in a later piece is reported with its place, the text read whole again.
    let bad = text.replacen("transpose(%t.140000)", "transpose(%t.1400000)", 1);
    std::fs::write(&input, &bad)?;
    let (ok, notes, _) = run_command(&input, &["assign"], false)?;
    assert!(
        !ok && notes.contains("t.1400000") && notes.contains("long.hlo:"),
        "{notes}"
    );
    Ok(())
}

/// The bytes `f`'s result holds: those live after it returns beyond those live before.
fn held_by<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let start = LIVE.load(Relaxed);
    let result = f();
    (result, LIVE.load(Relaxed).saturating_sub(start))
}

/// A lowered module of many short computations, as optimized dumps are (tens of thousands of
/// fusions of a few instructions), holds little more than a graph node, an order link and
/// an edge or two per instruction: no name table of its own per short computation, nodes of
/// 112 bytes. Its metadata is one shared text, so nearly all it holds is that structure.
#[test]
fn a_module_of_short_computations_holds_little_beyond_its_instructions() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let computations = 4_000;
    let text = module_text(computations, 3, 0);
    let (module, held) = held_by(|| hlo_layout::parse_module(&text));
    let module = module.expect("the generated module lowers");
    // Each computation: a parameter, three adds and the entry's call of it.
    let instructions = computations * 5 + 1;
    let per_instruction = held / instructions;
    eprintln!("{held} bytes held, {per_instruction} per instruction");
    assert!(held > 0, "nothing counted");
    // 321 bytes with 128-byte nodes and a name table per computation, 297 with the tables,
    // 286 with attributes of 32 bytes (a name and a value as `Arc<str>`).
    assert!(
        per_instruction <= 278,
        "{per_instruction} bytes per instruction"
    );
    drop(module);
}

/// One computation of `lines` instructions: transposes in turn of `f32[128,256]` and
/// `f32[256,128]`, each an array whose layout assignment chooses alone, as most of a long
/// entry computation's are.
fn long_computation_text(lines: usize) -> String {
    let mut text = String::from(
        "HloModule long\n\nENTRY %main (x: f32[128,256]) -> f32[128,256] {\n  %x = f32[128,256]{1,0} parameter(0)\n",
    );
    let mut last = "x".to_string();
    for i in 0..lines {
        let shape = if i % 2 == 0 {
            "f32[256,128]"
        } else {
            "f32[128,256]"
        };
        let root = if i + 1 == lines { "ROOT " } else { "" };
        text.push_str(&format!(
            "  {root}%t.{i} = {shape}{{1,0}} transpose(%{last}), dimensions={{1,0}}\n"
        ));
        last = format!("t.{i}");
    }
    text.push_str("}\n");
    text
}

/// A computation far longer than a piece, lowered from its text in pieces, holds about a
/// piece of its text at a time beside its graph, which is given room once for the whole
/// text rather than grown piece after piece (a copy of all of it at each doubling).
#[test]
fn a_computation_longer_than_a_piece_is_lowered_without_its_whole_text() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lines = 100_000;
    let text = long_computation_text(lines);
    let piece_bytes = 256 << 10;
    let start = LIVE.load(Relaxed);
    let (module, peak) = peak_during(|| {
        let pieces = TextPieces::new(text.as_bytes(), piece_bytes);
        hlo_layout::parse_module_in_pieces_of(pieces, text.len())
    });
    let held = LIVE.load(Relaxed).saturating_sub(start);
    let module = module.unwrap_or_else(|e| panic!("{e}"));
    let module = module.expect("lowered in pieces");
    assert_eq!(module.computations()[0].len(), lines + 1);
    let beyond = peak.saturating_sub(held);
    eprintln!(
        "{} bytes of text, {held} held, {beyond} more at the peak",
        text.len()
    );
    // The text whole, or a copy of the graph, would be over 6 MB (6.3 MB grown without
    // the text's size; the text was read whole before it was cut inside a computation).
    assert!(text.len() > 6 << 20, "{} bytes", text.len());
    assert!(
        beyond < 2 << 20,
        "{beyond} bytes beyond the module at the peak"
    );
}

/// Assigning layouts to a long computation holds little beyond the module: its copy of the
/// input is compressed, and reading it back takes room for that text, not for a piece of a
/// large file twice over (1,081 bytes an instruction when it did).
#[test]
fn assigning_a_long_computation_holds_little_beyond_its_module() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let lines = 20_000;
    let text = long_computation_text(lines);
    let mut module = hlo_layout::parse_module(&text).expect("the generated module lowers");
    let (assigned, peak) = peak_during(|| {
        hlo_layout::assign::assign_layouts(&mut module, &hlo_layout::ir::Target::default_tpu())
    });
    assigned.expect("the generated module assigns");
    let per_instruction = peak / lines;
    eprintln!("{peak} bytes at the peak beyond the module, {per_instruction} per instruction");
    assert!(peak > 0, "nothing counted");
    assert!(
        per_instruction <= 400,
        "{per_instruction} bytes per instruction"
    );
}
