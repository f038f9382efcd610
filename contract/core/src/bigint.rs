//! BigInts of any magnitude, held so that a huge one (2^2000000) costs nothing
//! until someone asks for its digits, and asking for the digits of one at or
//! beyond the contract's bound is answered without converting.

use crate::constants::MAX_BIGINT_BITS;
use num_bigint::BigUint;
use num_traits::{CheckedSub, One, Zero};
use std::fmt;
use std::sync::Arc;

/// A BigInt value: decimal digits, or a signed power of two plus a small offset.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BigIntValue {
    negative: bool,
    magnitude: Magnitude,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Magnitude {
    /// Decimal digits without leading zeros ("0" for zero).
    Decimal(Arc<str>),
    /// 2^exp + offset, offset in (-2^exp, 2^exp) so the sum stays positive.
    PowerOfTwo { exp: u64, offset: i64 },
}

/// Decimal digits of 2^4096 - 1: a magnitude with more digits is at least 2^4096.
const DIGITS_OF_BOUND: usize = 1234;

impl BigIntValue {
    /// Parses an optional `-` then decimal digits. `None` for anything else.
    pub fn from_decimal(text: &str) -> Option<BigIntValue> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let trimmed = digits.trim_start_matches('0');
        let digits = if trimmed.is_empty() { "0" } else { trimmed };
        Some(BigIntValue {
            negative: negative && digits != "0",
            magnitude: Magnitude::Decimal(digits.into()),
        })
    }

    /// `sign * (2^exp + offset)`. `None` when the offset would make the
    /// magnitude zero or negative (|offset| must be below 2^exp).
    pub fn power_of_two(negative: bool, exp: u64, offset: i64) -> Option<BigIntValue> {
        let fits = exp >= 64 || offset.unsigned_abs() < 1u64.checked_shl(exp as u32)?;
        fits.then_some(BigIntValue {
            negative,
            magnitude: Magnitude::PowerOfTwo { exp, offset },
        })
    }

    pub fn from_i64(n: i64) -> BigIntValue {
        BigIntValue {
            negative: n < 0,
            magnitude: Magnitude::Decimal(n.unsigned_abs().to_string().into()),
        }
    }

    /// Whether |n| is below 2^4096, decided without decimal conversion of
    /// anything larger.
    pub fn within_bound(&self) -> bool {
        match &self.magnitude {
            Magnitude::Decimal(d) => {
                d.len() < DIGITS_OF_BOUND
                    || (d.len() == DIGITS_OF_BOUND
                        && BigUint::parse_bytes(d.as_bytes(), 10)
                            .is_some_and(|m| m.bits() <= MAX_BIGINT_BITS))
            }
            Magnitude::PowerOfTwo { exp, offset } => {
                *exp < MAX_BIGINT_BITS || (*exp == MAX_BIGINT_BITS && *offset < 0)
            }
        }
    }

    /// Sign and decimal digits, only for values [`within_bound`](Self::within_bound).
    pub fn decimal(&self) -> Option<String> {
        if !self.within_bound() {
            return None;
        }
        let digits = match &self.magnitude {
            Magnitude::Decimal(d) => d.to_string(),
            Magnitude::PowerOfTwo { exp, offset } => {
                let power = BigUint::one() << *exp;
                let delta = BigUint::from(offset.unsigned_abs());
                let m = if *offset < 0 {
                    power.checked_sub(&delta)?
                } else {
                    power + delta
                };
                if m.is_zero() {
                    return None;
                }
                m.to_str_radix(10)
            }
        };
        Some(if self.negative {
            format!("-{digits}")
        } else {
            digits
        })
    }
}

impl fmt::Debug for BigIntValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.negative { "-" } else { "" };
        match &self.magnitude {
            Magnitude::Decimal(d) if d.len() <= 40 => write!(f, "{sign}{d}n"),
            Magnitude::Decimal(d) => write!(f, "{sign}<{} digits>n", d.len()),
            Magnitude::PowerOfTwo { exp, offset } => write!(f, "{sign}(2^{exp}{offset:+})n"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(value: BigIntValue, expect: Option<&str>) {
        assert_eq!(value.decimal().as_deref(), expect, "{value:?}");
    }

    #[test]
    fn bound_is_exactly_two_to_the_4096() {
        check(BigIntValue::power_of_two(false, 4096, 0).unwrap(), None);
        check(BigIntValue::power_of_two(true, 4096, 0).unwrap(), None);
        let below = BigIntValue::power_of_two(false, 4096, -1).unwrap();
        let digits = below.decimal().unwrap();
        assert_eq!(digits.len(), DIGITS_OF_BOUND);
        // the same magnitude written out is still within, one more is not
        check(BigIntValue::from_decimal(&digits).unwrap(), Some(&digits));
        let power = (BigUint::one() << 4096u32).to_str_radix(10);
        check(BigIntValue::from_decimal(&power).unwrap(), None);
        check(
            BigIntValue::from_decimal(&format!("1{}", "0".repeat(1300))).unwrap(),
            None,
        );
    }

    #[test]
    fn decimal_is_normalized() {
        check(BigIntValue::from_decimal("-0007").unwrap(), Some("-7"));
        check(BigIntValue::from_decimal("-0").unwrap(), Some("0"));
        check(
            BigIntValue::from_i64(i64::MIN),
            Some("-9223372036854775808"),
        );
        assert!(BigIntValue::from_decimal("1e3").is_none());
        assert!(BigIntValue::from_decimal("").is_none());
        assert!(BigIntValue::power_of_two(false, 3, -8).is_none());
    }

    #[test]
    fn huge_power_is_never_converted() {
        check(
            BigIntValue::power_of_two(false, 2_000_000, 0).unwrap(),
            None,
        );
    }
}
