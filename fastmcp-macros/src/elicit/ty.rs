//! What a field's type looks like, as far as the syntax tells: enough to reject an option on the wrong kind
//! of field with a pointed message. A type the macro can't read (an enum, an alias) is `Other`, and the
//! runtime's traits check it instead.

use syn::{GenericArgument, PathArguments, Type};

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Shape {
    Text,
    Bool,
    /// An integer type: its name and range.
    Int(&'static str, i128, i128),
    Float,
    /// `Vec<_>`: a multi-select.
    Multi,
    Other,
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub struct FieldType {
    pub optional: bool,
    pub shape: Shape,
}

impl Shape {
    /// The options of this kind of field besides `title`, `rename` and `default`.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            Shape::Text => &["min_length", "max_length", "format"],
            Shape::Int(..) | Shape::Float => &["minimum", "maximum"],
            Shape::Multi => &["min_items", "max_items"],
            Shape::Bool => &[],
            Shape::Other => {
                &["min_length", "max_length", "format", "minimum", "maximum", "min_items", "max_items", "enum_names"]
            }
        }
    }

    /// The field kind that takes `option`.
    pub fn owner_of(option: &str) -> &'static str {
        match option {
            "min_length" | "max_length" | "format" => "`String` fields",
            "minimum" | "maximum" => "integer and float fields",
            "enum_names" => "single-select fields (an `#[elicit]` enum)",
            _ => "multi-select fields (`Vec` of an `#[elicit]` enum)",
        }
    }

    /// "a `bool` field", for messages.
    pub fn describe(self) -> String {
        match self {
            Shape::Text => "a `String` field".into(),
            Shape::Bool => "a `bool` field".into(),
            Shape::Int(name, ..) => format!("a `{name}` field"),
            Shape::Float => "a float field".into(),
            Shape::Multi => "a multi-select field".into(),
            Shape::Other => "this field".into(),
        }
    }
}

const INTS: &[(&str, i128, i128)] = &[
    ("u8", u8::MIN as i128, u8::MAX as i128),
    ("u16", u16::MIN as i128, u16::MAX as i128),
    ("u32", u32::MIN as i128, u32::MAX as i128),
    ("u64", u64::MIN as i128, u64::MAX as i128),
    ("u128", 0, i128::MAX),
    ("usize", 0, u64::MAX as i128),
    ("i8", i8::MIN as i128, i8::MAX as i128),
    ("i16", i16::MIN as i128, i16::MAX as i128),
    ("i32", i32::MIN as i128, i32::MAX as i128),
    ("i64", i64::MIN as i128, i64::MAX as i128),
    ("i128", i128::MIN, i128::MAX),
    ("isize", i64::MIN as i128, i64::MAX as i128),
];

pub fn classify(ty: &Type) -> FieldType {
    let ty = ungroup(ty);
    let Type::Path(tp) = ty else { return FieldType { optional: false, shape: Shape::Other } };
    let Some(last) = tp.path.segments.last() else { return FieldType { optional: false, shape: Shape::Other } };
    let name = last.ident.to_string();
    let only_arg = || match &last.arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first() {
            Some(GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    };
    if tp.qself.is_none() && last.arguments.is_empty() {
        let shape = match name.as_str() {
            "String" => Shape::Text,
            "bool" => Shape::Bool,
            "f32" | "f64" => Shape::Float,
            n => match INTS.iter().find(|(i, ..)| *i == n) {
                Some(&(name, min, max)) => Shape::Int(name, min, max),
                None => Shape::Other,
            },
        };
        return FieldType { optional: false, shape };
    }
    match (name.as_str(), only_arg()) {
        ("Option", Some(inner)) => FieldType { optional: true, shape: classify(inner).shape },
        ("Vec", Some(_)) => FieldType { optional: false, shape: Shape::Multi },
        _ => FieldType { optional: false, shape: Shape::Other },
    }
}

fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => ungroup(&g.elem),
        Type::Paren(p) => ungroup(&p.elem),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn shapes() {
        let c = |t: Type| classify(&t);
        assert_eq!(c(parse_quote!(String)).shape, Shape::Text);
        assert_eq!(c(parse_quote!(std::string::String)).shape, Shape::Text);
        assert_eq!(c(parse_quote!(Option<u8>)), FieldType { optional: true, shape: Shape::Int("u8", 0, 255) });
        assert_eq!(c(parse_quote!(Vec<Tag>)).shape, Shape::Multi);
        assert_eq!(c(parse_quote!(Option<Vec<Tag>>)), FieldType { optional: true, shape: Shape::Multi });
        assert_eq!(c(parse_quote!(Priority)).shape, Shape::Other);
        assert_eq!(c(parse_quote!(&'static str)).shape, Shape::Other);
        assert_eq!(c(parse_quote!(HashMap<String, String>)).shape, Shape::Other);
    }
}
