//! XLA's primitive element types, with their text spelling and storage sizes.

use std::fmt;

/// One of the 34 element types of XLA's `PrimitiveType` enum that HLO text can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(into = "&'static str")]
pub enum PrimitiveType {
    /// `pred`: a boolean, one bit of value stored in a byte.
    Pred,
    /// `s1`: a 1-bit signed integer.
    S1,
    /// `s2`: a 2-bit signed integer.
    S2,
    /// `s4`: a 4-bit signed integer.
    S4,
    /// `s8`: an 8-bit signed integer.
    S8,
    /// `s16`: a 16-bit signed integer.
    S16,
    /// `s32`: a 32-bit signed integer.
    S32,
    /// `s64`: a 64-bit signed integer.
    S64,
    /// `u1`: a 1-bit unsigned integer.
    U1,
    /// `u2`: a 2-bit unsigned integer.
    U2,
    /// `u4`: a 4-bit unsigned integer.
    U4,
    /// `u8`: an 8-bit unsigned integer.
    U8,
    /// `u16`: a 16-bit unsigned integer.
    U16,
    /// `u32`: a 32-bit unsigned integer.
    U32,
    /// `u64`: a 64-bit unsigned integer.
    U64,
    /// `f16`: IEEE half precision.
    F16,
    /// `bf16`: bfloat16, f32's exponent with 7 mantissa bits.
    Bf16,
    /// `f32`: IEEE single precision.
    F32,
    /// `f64`: IEEE double precision.
    F64,
    /// `f8e5m2`: 8-bit float, 5 exponent and 2 mantissa bits, with infinities.
    F8E5m2,
    /// `f8e4m3`: 8-bit float, 4 exponent and 3 mantissa bits, with infinities.
    F8E4m3,
    /// `f8e4m3fn`: 8-bit float, 4 exponent and 3 mantissa bits, finite only.
    F8E4m3fn,
    /// `f8e4m3b11fnuz`: 8-bit float, 4 exponent bits biased by 11 and 3 mantissa bits,
    /// finite, without negative zero.
    F8E4m3b11fnuz,
    /// `f8e3m4`: 8-bit float, 3 exponent and 4 mantissa bits, with infinities.
    F8E3m4,
    /// `f8e5m2fnuz`: 8-bit float, 5 exponent and 2 mantissa bits, finite, without negative
    /// zero.
    F8E5m2fnuz,
    /// `f8e4m3fnuz`: 8-bit float, 4 exponent and 3 mantissa bits, finite, without negative
    /// zero.
    F8E4m3fnuz,
    /// `f8e8m0fnu`: 8 exponent bits and no mantissa or sign, a power-of-two scale.
    F8E8m0fnu,
    /// `f6e2m3fn`: 6-bit float, 2 exponent and 3 mantissa bits, finite only.
    F6E2m3fn,
    /// `f6e3m2fn`: 6-bit float, 3 exponent and 2 mantissa bits, finite only.
    F6E3m2fn,
    /// `f4e2m1fn`: 4-bit float, 2 exponent bits and 1 mantissa bit, finite only.
    F4E2m1fn,
    /// `c64`: a complex number of two `f32`s.
    C64,
    /// `c128`: a complex number of two `f64`s.
    C128,
    /// `token`: orders side effects; it has no elements.
    Token,
    /// `opaque`: a value only a backend understands; it has no elements.
    Opaque,
}

use PrimitiveType::*;

/// The table that gives every type its spelling and logical bit width.
/// Token and opaque have no elements, so their width is 0.
const TABLE: [(PrimitiveType, &str, u32); 34] = [
    (Pred, "pred", 1),
    (S1, "s1", 1),
    (S2, "s2", 2),
    (S4, "s4", 4),
    (S8, "s8", 8),
    (S16, "s16", 16),
    (S32, "s32", 32),
    (S64, "s64", 64),
    (U1, "u1", 1),
    (U2, "u2", 2),
    (U4, "u4", 4),
    (U8, "u8", 8),
    (U16, "u16", 16),
    (U32, "u32", 32),
    (U64, "u64", 64),
    (F16, "f16", 16),
    (Bf16, "bf16", 16),
    (F32, "f32", 32),
    (F64, "f64", 64),
    (F8E5m2, "f8e5m2", 8),
    (F8E4m3, "f8e4m3", 8),
    (F8E4m3fn, "f8e4m3fn", 8),
    (F8E4m3b11fnuz, "f8e4m3b11fnuz", 8),
    (F8E3m4, "f8e3m4", 8),
    (F8E5m2fnuz, "f8e5m2fnuz", 8),
    (F8E4m3fnuz, "f8e4m3fnuz", 8),
    (F8E8m0fnu, "f8e8m0fnu", 8),
    (F6E2m3fn, "f6e2m3fn", 6),
    (F6E3m2fn, "f6e3m2fn", 6),
    (F4E2m1fn, "f4e2m1fn", 4),
    (C64, "c64", 64),
    (C128, "c128", 128),
    (Token, "token", 0),
    (Opaque, "opaque", 0),
];

impl PrimitiveType {
    /// Every primitive type, in XLA's enum order of families.
    pub const ALL: [PrimitiveType; 34] = {
        let mut all = [Pred; 34];
        let mut i = 0;
        while i < 34 {
            all[i] = TABLE[i].0;
            i += 1;
        }
        all
    };

    fn entry(self) -> &'static (PrimitiveType, &'static str, u32) {
        // The table is in declaration order, so the discriminant is the row.
        &TABLE[self as usize]
    }

    /// The lower-case spelling used in HLO text, e.g. `bf16`.
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// Looks a type up by its HLO spelling; `None` for anything else.
    pub fn from_name(name: &str) -> Option<PrimitiveType> {
        // Every shape starts with one; the common types are tried before the whole table.
        match name {
            "f32" => return Some(PrimitiveType::F32),
            "bf16" => return Some(PrimitiveType::Bf16),
            "s32" => return Some(PrimitiveType::S32),
            "pred" => return Some(PrimitiveType::Pred),
            _ => {}
        }
        TABLE.iter().find(|row| row.1 == name).map(|row| row.0)
    }

    /// The number of bits that carry the value (XLA's `BitWidth`): pred is 1, s4 is 4,
    /// c64 is 64. Token and opaque have no elements and report 0.
    pub fn bit_width(self) -> u32 {
        self.entry().2
    }

    /// Bytes one element occupies when the layout gives no element size (XLA's
    /// `ByteWidth`): pred and every sub-byte type take a whole byte.
    pub fn byte_width(self) -> u32 {
        self.bit_width().div_ceil(8)
    }

    /// Whether the type can be the element type of an array (everything except token
    /// and opaque).
    pub fn is_array_type(self) -> bool {
        !matches!(self, Token | Opaque)
    }

    /// XLA's `IsSubByteNonPredType`: narrower than a byte and not pred.
    pub fn is_sub_byte_non_pred(self) -> bool {
        self != Pred && self.is_array_type() && self.bit_width() < 8
    }

    /// Whether the type is a signed or unsigned integer; pred is not.
    pub fn is_integral(self) -> bool {
        matches!(
            self,
            S1 | S2 | S4 | S8 | S16 | S32 | S64 | U1 | U2 | U4 | U8 | U16 | U32 | U64
        )
    }

    /// Whether the type is a real floating-point type, of any width.
    pub fn is_floating_point(self) -> bool {
        matches!(
            self,
            F16 | Bf16
                | F32
                | F64
                | F8E5m2
                | F8E4m3
                | F8E4m3fn
                | F8E4m3b11fnuz
                | F8E3m4
                | F8E5m2fnuz
                | F8E4m3fnuz
                | F8E8m0fnu
                | F6E2m3fn
                | F6E3m2fn
                | F4E2m1fn
        )
    }

    /// Whether the type is a complex number.
    pub fn is_complex(self) -> bool {
        matches!(self, C64 | C128)
    }
}

impl From<PrimitiveType> for &'static str {
    fn from(ty: PrimitiveType) -> &'static str {
        ty.name()
    }
}

impl fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_follow_declaration_order() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.0 as usize, i, "{}", row.1);
        }
        assert_eq!(PrimitiveType::ALL.len(), 34);
    }

    #[test]
    fn names_round_trip() {
        for ty in PrimitiveType::ALL {
            assert_eq!(PrimitiveType::from_name(ty.name()), Some(ty));
        }
        assert_eq!(PrimitiveType::from_name("tuple"), None);
        assert_eq!(PrimitiveType::from_name("opaque_type"), None);
    }

    #[test]
    fn widths() {
        assert_eq!(Pred.bit_width(), 1);
        assert_eq!(Pred.byte_width(), 1);
        assert_eq!(S4.byte_width(), 1);
        assert_eq!(F6E2m3fn.byte_width(), 1);
        assert_eq!(Bf16.byte_width(), 2);
        assert_eq!(C64.byte_width(), 8);
        assert_eq!(C128.byte_width(), 16);
        assert!(S4.is_sub_byte_non_pred());
        assert!(!Pred.is_sub_byte_non_pred());
        assert!(!S8.is_sub_byte_non_pred());
    }
}
