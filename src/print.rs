//! The IR printer: a module as HLO text, as XLA's `HloModule::ToString` prints it. A module
//! lowered from text and left unchanged prints as the canonical printer of its syntax tree
//! ([`print_module`], which lives with lowering) prints that text.

use std::fmt::Write;

use crate::ir;
use crate::ir::attribute_order::{attribute_rank, in_print_order};
use crate::ir::shape_text::{push_int, push_shape};
use crate::ir::vocabulary::HEADER_ORDER;

pub use crate::lower::canonical::print_module;

/// Prints a module from the IR. An unchanged module prints exactly as [`print_module`]
/// prints the text it was lowered from. A large module is printed on two threads.
pub fn print_ir_module(module: &ir::Module) -> String {
    print_ir_module_on(
        module,
        crate::parallel::threshold(crate::parallel::PRINT_MIN_INSTRUCTIONS),
    )
}

/// A module prints as [`print_ir_module`] prints it, so `module.to_string()` and `{module}`
/// give its HLO text.
///
/// ```
/// let text = "HloModule m\n\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0)\n}\n\n";
/// let module = hlo_layout::parse_module(text).map_err(|errors| errors[0].to_string())?;
/// assert_eq!(module.to_string(), hlo_layout::print::print_ir_module(&module));
/// assert!(format!("{module}").contains("parameter(0)"));
/// # Ok::<(), String>(())
/// ```
impl std::fmt::Display for ir::Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&print_ir_module(self))
    }
}

/// [`print_ir_module`], on two threads only when the module has at least `min_instructions`
/// instructions (`usize::MAX`: one thread, as tests and benchmarks compare) and its
/// computations make two shares near even ([`crate::parallel::print_cut`]); each thread
/// prints whole computations.
#[doc(hidden)]
pub fn print_ir_module_on(module: &ir::Module, min_instructions: usize) -> String {
    // Lines run to about 100-200 bytes in real dumps. Room that is never written costs no
    // memory (its pages are never touched), while growing would copy everything printed.
    let mut out = String::with_capacity(256 * module.instruction_count() + 256);
    let kept: Result<Option<String>, std::convert::Infallible> =
        print_ir_module_into(module, min_instructions, &mut out, &mut |_| Ok(()), None);
    match kept {
        Ok(tail) => {
            out.push_str(tail.as_deref().unwrap_or_default());
            out
        }
        Err(never) => match never {},
    }
}

/// How much printed text [`write_ir_module`] holds before writing it out.
const WRITE_CHUNK_BYTES: usize = 1 << 20;

/// Writes the text [`print_ir_module`] gives to `writer` as it is printed, so that the
/// whole text is never held: the first share of the computations goes out in chunks, and
/// only the second share, printed meanwhile on another thread for a large module, is held
/// until the first is written ([`write_ir_module_spilling`] holds none).
pub fn write_ir_module(
    module: &ir::Module,
    writer: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let tail = write_ir_module_on(module, writer, None)?;
    writer.write_all(tail.as_deref().unwrap_or_default().as_bytes())
}

/// [`write_ir_module`], the second thread's share of a large module written to `spill` (a
/// temporary file, say) as it is printed, then copied from there to `writer` after this
/// thread's share, instead of held in memory: about half the printed text less at the
/// peak, for one more write and read of that half. `spill` is written from its start; if
/// writing it fails, the rest of the share is held instead.
pub fn write_ir_module_spilling<S>(
    module: &ir::Module,
    writer: &mut dyn std::io::Write,
    spill: &mut S,
) -> std::io::Result<()>
where
    S: std::io::Read + std::io::Write + std::io::Seek + Send,
{
    // A spill that fails (a full disk, say) is given up, not the printing: the rest of the
    // share is held in memory, to follow the bytes the spill took whole.
    let mut spilling = spill.seek(std::io::SeekFrom::Start(0)).is_ok();
    let mut spilled = 0u64;
    let mut to_spill = |text: &mut String| -> std::io::Result<()> {
        if spilling && text.len() >= WRITE_CHUNK_BYTES {
            if spill.write_all(text.as_bytes()).is_ok() {
                spilled += text.len() as u64;
                text.clear();
            } else {
                spilling = false;
            }
        }
        Ok(())
    };
    let tail = write_ir_module_on(module, writer, Some(&mut to_spill))?;
    copy_spilled(spill, 0, spilled, writer)?;
    writer.write_all(tail.as_deref().unwrap_or_default().as_bytes())
}

/// Copies the `bytes` bytes written to `spill` from offset `start` to `writer`; an error if
/// they cannot all be read back.
pub(crate) fn copy_spilled<S>(
    spill: &mut S,
    start: u64,
    bytes: u64,
    writer: &mut dyn std::io::Write,
) -> std::io::Result<()>
where
    S: std::io::Read + std::io::Write + std::io::Seek,
{
    if bytes == 0 {
        return Ok(());
    }
    spill.flush()?;
    spill.seek(std::io::SeekFrom::Start(start))?;
    let copied = std::io::copy(&mut std::io::Read::take(&mut *spill, bytes), writer)?;
    if copied != bytes {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the text written to the spill could not be read back whole",
        ));
    }
    Ok(())
}

/// The flush of the second thread's share: writes out and clears what it is given, or
/// leaves it.
type TailFlush<'f, E> = &'f mut (dyn FnMut(&mut String) -> Result<(), E> + Send);

/// Writes this thread's share of a module as [`write_ir_module`] does, and gives back what
/// the second thread printed of its share and did not flush (all of it unless `spill` is
/// given), for the caller to write after what `spill` took.
fn write_ir_module_on(
    module: &ir::Module,
    writer: &mut dyn std::io::Write,
    spill: Option<TailFlush<'_, std::io::Error>>,
) -> std::io::Result<Option<String>> {
    let mut out = String::with_capacity(WRITE_CHUNK_BYTES + WRITE_CHUNK_BYTES / 2);
    let tail = print_ir_module_into::<std::io::Error>(
        module,
        crate::parallel::threshold(crate::parallel::PRINT_MIN_INSTRUCTIONS),
        &mut out,
        &mut |text: &mut String| {
            if text.len() >= WRITE_CHUNK_BYTES {
                writer.write_all(text.as_bytes())?;
                text.clear();
            }
            Ok(())
        },
        spill,
    )?;
    writer.write_all(out.as_bytes())?;
    Ok(tail)
}

/// Prints a module as [`print_ir_module`] does without holding its text: `head` is handed
/// the text of the first share of the computations as it is printed (all of them for a
/// small module), and `tail` that of the second share, printed meanwhile on another thread.
/// Each is called with what was printed since it last took text, at least
/// [`WRITE_CHUNK_BYTES`] of it but the last time; the module's text is everything `head`
/// took, then everything `tail` took.
pub(crate) fn print_ir_module_handing_out(
    module: &ir::Module,
    head: &mut dyn FnMut(&str),
    tail: &mut (dyn FnMut(&str) + Send),
) {
    let hand_out = |take: &mut dyn FnMut(&str), text: &mut String| {
        if text.len() >= WRITE_CHUNK_BYTES {
            take(text);
            text.clear();
        }
    };
    let mut out = String::with_capacity(WRITE_CHUNK_BYTES + WRITE_CHUNK_BYTES / 2);
    let mut tail_flush = |text: &mut String| -> Result<(), std::convert::Infallible> {
        hand_out(&mut *tail, text);
        Ok(())
    };
    let printed = print_ir_module_into(
        module,
        crate::parallel::threshold(crate::parallel::PRINT_MIN_INSTRUCTIONS),
        &mut out,
        &mut |text: &mut String| {
            hand_out(&mut *head, text);
            Ok(())
        },
        Some(&mut tail_flush),
    );
    let rest = match printed {
        Ok(rest) => rest,
        Err(never) => match never {},
    };
    head(&out);
    if let Some(rest) = rest {
        tail(&rest);
    }
}

/// The length and a 64-bit hash of the text [`print_ir_module`] gives, computed as it is
/// printed rather than held: modules that print the same give the same digest, and a pass
/// can tell whether it changed a module by comparing two.
pub fn ir_module_digest(module: &ir::Module) -> (u64, u64) {
    use std::hash::Hasher;
    // Each share of a module printed on two threads is hashed on its own thread rather than
    // held to be hashed after the first: the shares are cut by the computations' sizes,
    // which the same text always gives the same.
    #[derive(Default)]
    struct Digest(u64, std::collections::hash_map::DefaultHasher);
    impl Digest {
        fn take(&mut self, text: &str) {
            self.0 += text.len() as u64;
            // SipHash reads its input as one stream, however it is cut into writes.
            self.1.write(text.as_bytes());
        }
    }
    let (mut head, mut tail) = (Digest::default(), Digest::default());
    print_ir_module_handing_out(module, &mut |text| head.take(text), &mut |text| {
        tail.take(text)
    });
    let mut both = head.1;
    both.write_u64(tail.0);
    both.write_u64(tail.1.finish());
    (head.0 + tail.0, both.finish())
}

/// Prints `module` into `out`, calling `flush` after each computation this thread prints
/// (it may write out and clear what `out` holds). On two threads, the second share comes
/// back to follow what `out` holds: whole, or, when `tail_flush` is given, what is left of
/// it once `tail_flush` was called after each of its computations.
fn print_ir_module_into<E: Send>(
    module: &ir::Module,
    min_instructions: usize,
    out: &mut String,
    flush: &mut dyn FnMut(&mut String) -> Result<(), E>,
    tail_flush: Option<TailFlush<'_, E>>,
) -> Result<Option<String>, E> {
    if module.has_header {
        out.push_str("HloModule ");
        out.push_str(&module.name);
        let rank = |a: &ir::module::TextAttribute| HEADER_ORDER.iter().position(|n| *n == &*a.name);
        for attribute in in_print_order(&module.attributes, rank) {
            let _ = write!(out, ", {}={}", attribute.name, attribute.value);
        }
        out.push_str("\n\n");
    }
    out.push_str(&module.tables);
    // Most modules write no computation in place: they print without looking for any.
    let printer = module
        .computations()
        .iter()
        .any(|c| c.in_place)
        .then(|| IrPrinter::new(module));
    let print_share = |out: &mut String,
                       share: std::ops::Range<usize>,
                       flush: &mut dyn FnMut(&mut String) -> Result<(), E>|
     -> Result<(), E> {
        let mut shapes = ShapeTexts::default();
        for index in share {
            if printer.as_ref().is_some_and(|p| p.printed_in_place[index]) {
                continue;
            }
            print_ir_computation(
                out,
                &module.computations()[index],
                printer.as_ref(),
                &mut shapes,
                flush,
            )?;
            out.push_str("\n\n");
            flush(out)?;
        }
        Ok(())
    };
    let last = module.computations().len();
    let sizes = module.computations().iter().map(|c| c.len());
    let Some(cut) = crate::parallel::print_cut(sizes, min_instructions) else {
        return print_share(out, 0..last, flush).map(|()| None);
    };
    let print_tail = || match tail_flush {
        Some(tail_flush) => {
            let mut tail = String::with_capacity(WRITE_CHUNK_BYTES + WRITE_CHUNK_BYTES / 2);
            print_share(&mut tail, cut..last, tail_flush).map(|()| tail)
        }
        None => {
            let instructions: usize = module.computations()[cut..].iter().map(|c| c.len()).sum();
            let mut tail = String::with_capacity(256 * instructions);
            // Nothing is written out here, so the share is printed whole.
            print_share(&mut tail, cut..last, &mut |_| Ok(())).map(|()| tail)
        }
    };
    let (head, tail) = crate::parallel::join(|| print_share(out, 0..cut, flush), print_tail);
    head?;
    tail.map(Some)
}

/// Prints computations of one module, writing those the text wrote in place back there.
struct IrPrinter<'m> {
    module: &'m ir::Module,
    /// By computation: written in place and called, so printed by its caller.
    printed_in_place: Vec<bool>,
}

impl<'m> IrPrinter<'m> {
    fn new(module: &'m ir::Module) -> IrPrinter<'m> {
        let mut printed_in_place = vec![false; module.computations().len()];
        for computation in module.computations() {
            for &id in computation.order() {
                let instruction = computation.instruction(id);
                for attribute in &instruction.attributes {
                    for ir::ComputationId(c) in in_place_callees(module, instruction, attribute)
                        .into_iter()
                        .flatten()
                    {
                        printed_in_place[c as usize] = true;
                    }
                }
            }
        }
        IrPrinter {
            module,
            printed_in_place,
        }
    }
}

/// For a called-computation attribute, each name it gives with the computation to print in
/// its place, if that one was written in place; empty when none was.
fn in_place_callees(
    module: &ir::Module,
    instruction: &ir::module::Instruction,
    attribute: &ir::module::TextAttribute,
) -> Vec<Option<ir::ComputationId>> {
    if instruction.called.is_empty() || !crate::ir::vocabulary::calls_computations(&attribute.name)
    {
        return Vec::new();
    }
    let names = callee_names(&attribute.value);
    let callees: Vec<Option<ir::ComputationId>> = names
        .iter()
        .map(|name| {
            instruction.called.iter().copied().find(|id| {
                module
                    .computations()
                    .get(id.0 as usize)
                    .is_some_and(|c| c.in_place && c.name == name.trim_start_matches('%'))
            })
        })
        .collect();
    if callees.iter().any(Option::is_some) {
        callees
    } else {
        Vec::new()
    }
}

/// The computation names in a called-computation attribute's text as written: `%a` or
/// `{a, %b}`.
fn callee_names(value: &str) -> Vec<&str> {
    let inner = value
        .trim()
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(value);
    inner
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .collect()
}

fn push_name(out: &mut String, name: &str, style: ir::module::PrintStyle) {
    if style.percent {
        out.push('%');
    }
    out.push_str(name);
}

/// The text of each instruction shape printed so far, by the shape's address: instructions
/// share their shape's allocation with every instruction of the same shape (lowering and
/// layout assignment both see to it), so most shapes are printed once and then copied.
/// Addresses are stable because the module is borrowed for the whole print.
#[derive(Default)]
struct ShapeTexts {
    texts: String,
    ranges: rustc_hash::FxHashMap<*const ir::Shape, std::ops::Range<usize>>,
}

impl ShapeTexts {
    /// Appends `shape`, with its layouts, to `out`.
    fn push(&mut self, out: &mut String, shape: &std::sync::Arc<ir::Shape>) {
        let key = std::sync::Arc::as_ptr(shape);
        if let Some(range) = self.ranges.get(&key) {
            out.push_str(&self.texts[range.clone()]);
            return;
        }
        let start = out.len();
        push_shape(out, shape, true);
        let cached = self.texts.len();
        self.texts.push_str(&out[start..]);
        self.ranges.insert(key, cached..self.texts.len());
    }
}

/// Prints `computation` into `out`, handing `out` to `flush` after each line, so that a
/// long computation is written as it is printed rather than held whole.
fn print_ir_computation<E>(
    out: &mut String,
    computation: &ir::Computation,
    printer: Option<&IrPrinter<'_>>,
    shapes: &mut ShapeTexts,
    flush: &mut dyn FnMut(&mut String) -> Result<(), E>,
) -> Result<(), E> {
    if computation.entry_written {
        out.push_str("ENTRY ");
    }
    if computation.percent {
        out.push('%');
    }
    out.push_str(&computation.name);
    if computation.has_signature {
        out.push_str(" (");
        for (i, (_, id)) in computation.parameters().into_iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let parameter = computation.instruction(id);
            let name = computation
                .signature_names
                .get(i)
                .map_or(parameter.name(), String::as_str);
            out.push_str(name);
            out.push_str(": ");
            push_shape(out, &parameter.shape, false);
        }
        out.push_str(") -> ");
        if let Some(root) = computation.root() {
            push_shape(out, &computation.instruction(root).shape, false);
        }
    }
    out.push_str(" {\n");
    print_ir_instructions(out, computation, printer, shapes, 2, flush)?;
    out.push('}');
    for attribute in &computation.attributes {
        let _ = write!(out, ", {}={}", attribute.name, attribute.value);
    }
    Ok(())
}

/// A computation's lines, each indented by `indent` spaces, `out` handed to `flush` after
/// each.
fn print_ir_instructions<E>(
    out: &mut String,
    computation: &ir::Computation,
    printer: Option<&IrPrinter<'_>>,
    shapes: &mut ShapeTexts,
    indent: usize,
    flush: &mut dyn FnMut(&mut String) -> Result<(), E>,
) -> Result<(), E> {
    let root = computation.root();
    for &id in computation.order() {
        push_indent(out, indent);
        if Some(id) == root && computation.root_written {
            out.push_str("ROOT ");
        }
        print_ir_instruction(out, computation, id, printer, shapes, indent);
        out.push('\n');
        flush(out)?;
    }
    Ok(())
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A computation written in place, as XLA's canonical print writes it: `{` on a line of its
/// own at the caller's indentation, its lines two spaces further in.
fn print_in_place(
    out: &mut String,
    computation: &ir::Computation,
    printer: &IrPrinter<'_>,
    shapes: &mut ShapeTexts,
    indent: usize,
) {
    push_indent(out, indent);
    out.push_str("{\n");
    // Inside a line, which is printed whole.
    let whole = &mut |_: &mut String| Ok::<(), std::convert::Infallible>(());
    let Ok(()) = print_ir_instructions(out, computation, Some(printer), shapes, indent + 2, whole);
    push_indent(out, indent);
    out.push('}');
}

fn print_ir_instruction(
    out: &mut String,
    computation: &ir::Computation,
    id: ir::InstrId,
    printer: Option<&IrPrinter<'_>>,
    shapes: &mut ShapeTexts,
    indent: usize,
) {
    let instruction = computation.instruction(id);
    let style = instruction.style;
    push_name(out, instruction.name(), style);
    out.push_str(" = ");
    if instruction.shape_written {
        shapes.push(out, &instruction.shape);
        out.push(' ');
    }
    out.push_str(instruction.opcode.name());
    out.push('(');
    match &instruction.payload {
        ir::module::Payload::Parameter(n) => push_int(out, *n),
        ir::module::Payload::Literal(text) => out.push_str(text),
        ir::module::Payload::None => {}
    }
    for (i, operand) in computation.operands(id).into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
            if style.operand_percent && i % 5 == 0 {
                out.push_str("/*index=");
                push_int(out, i as i64);
                out.push_str("*/");
            }
        }
        let operand_instruction = computation.instruction(operand);
        let path = instruction.tuple_path(i as u32);
        if style.operand_shapes {
            if path.is_empty() {
                shapes.push(out, &operand_instruction.shape);
                out.push(' ');
            } else if let Some(shape) = operand_instruction.shape.subshape(path) {
                push_shape(out, shape, true);
                out.push(' ');
            }
        }
        if style.operand_percent != instruction.percent_differs(i as u32) {
            out.push('%');
        }
        out.push_str(operand_instruction.name());
        for &index in path {
            out.push('#');
            push_int(out, index);
        }
    }
    out.push(')');
    let opcode = instruction.opcode.name();
    let mut push_attribute = |attribute: &ir::module::TextAttribute| {
        out.push_str(", ");
        out.push_str(&attribute.name);
        out.push('=');
        let in_place = printer
            .map(|p| (p, in_place_callees(p.module, instruction, attribute)))
            .filter(|(_, callees)| !callees.is_empty());
        match in_place {
            Some((printer, callees)) => {
                print_callees(out, printer, shapes, &attribute.value, &callees, indent)
            }
            None => out.push_str(&attribute.value),
        }
    };
    match instruction.attributes.as_slice() {
        // Nothing to order: skip building the sorted list.
        [] => {}
        [only] => push_attribute(only),
        attributes => {
            for attribute in in_print_order(attributes, |a| attribute_rank(opcode, &a.name)) {
                push_attribute(attribute);
            }
        }
    }
}

/// One instruction as `print_ir_module` prints its line, without indentation or `ROOT`.
pub fn print_ir_instruction_line(computation: &ir::Computation, id: ir::InstrId) -> String {
    let mut out = String::new();
    print_ir_instruction(
        &mut out,
        computation,
        id,
        None,
        &mut ShapeTexts::default(),
        0,
    );
    out
}

/// A called-computation attribute's value with in-place computations written back in place:
/// `calls=` then the body on the next lines, or a braced list of them, one per line, whose
/// closing brace XLA puts at the start of a line.
fn print_callees(
    out: &mut String,
    printer: &IrPrinter<'_>,
    shapes: &mut ShapeTexts,
    value: &str,
    callees: &[Option<ir::ComputationId>],
    indent: usize,
) {
    let names = callee_names(value);
    let braced = value.trim_start().starts_with('{');
    if braced {
        out.push('{');
    }
    for (i, (name, callee)) in names.iter().zip(callees).enumerate() {
        out.push_str(if i > 0 { ",\n" } else { "\n" });
        match callee {
            Some(id) => print_in_place(
                out,
                &printer.module.computations()[id.0 as usize],
                printer,
                shapes,
                indent,
            ),
            None => {
                push_indent(out, indent);
                out.push_str(name);
            }
        }
    }
    if braced {
        out.push_str("\n}");
    }
}
