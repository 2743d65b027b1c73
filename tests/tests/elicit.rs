//! What `#[elicit]` generates: the restricted `requestedSchema` of a form (compared whole), the validation of
//! the client's untrusted answer, and the `Ask` round trip (`elicitation/create` out, accept/decline/cancel
//! back), driven through `fastmcp::flow::{Ask, ElicitForm}` directly.

use fastmcp::flow::{Ask, ElicitChoice, Elicitation, FormField};
use fastmcp::prelude::*;
use fastmcp::protocol::{InputRequest, InputRequests, InputResponses, JsonObject};
use serde_json::{Value, json};

// ---- the forms under test ------------------------------------------------------------------------------

/// Untitled: no variant has a title or doc comment.
#[elicit]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Size {
    Small,
    Medium,
    Large,
}

/// Titled: doc comments and `title`s become `oneOf` titles; a variant with neither shows its value.
#[elicit(rename_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Priority {
    /// Whenever you get to it
    Low,
    #[elicit(title = "Right now")]
    VeryHigh,
    #[elicit(rename = "meh")]
    Unsure,
}

#[elicit]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Bug,
    Feature,
    #[elicit(rename = "docs")]
    Documentation,
}

#[elicit]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Topping {
    #[elicit(title = "Extra cheese")]
    Cheese,
    /// Mushrooms
    Mushroom,
}

/// Every kind of field.
#[elicit(title = "Order")]
#[derive(Debug, Clone, PartialEq)]
struct Order {
    /// Who the order is for.
    #[elicit(title = "Name", min_length = 2, max_length = 10)]
    name: String,
    #[elicit(format = "email")]
    email: String,
    #[elicit(format = "uri")]
    website: Option<String>,
    #[elicit(format = "date")]
    deliver_on: Option<String>,
    #[elicit(format = "date-time", rename = "deliverAt")]
    deliver_at: Option<String>,
    /// Gift-wrap it?
    #[elicit(default = false)]
    gift: bool,
    quantity: u8,
    #[elicit(minimum = 1, maximum = 10)]
    boxes: u32,
    offset: i64,
    #[elicit(minimum = 0, maximum = 1.5, default = 1)]
    discount: f64,
    size: Size,
    #[elicit(default = "low")]
    priority: Priority,
    #[elicit(min_items = 1, max_items = 2)]
    tags: Vec<Tag>,
    toppings: Option<Vec<Topping>>,
    r#type: Option<Size>,
}

/// The design's example.
#[elicit]
#[derive(Debug, Clone, PartialEq)]
struct Confirm {
    /// Go ahead with the deployment?
    confirm: bool,
}

/// Defaults of every kind, and what an answer that leaves them out gets.
#[elicit]
#[derive(Debug, Clone, PartialEq)]
struct Defaults {
    #[elicit(default = "anonymous")]
    name: String,
    #[elicit(default = true)]
    notify: bool,
    #[elicit(default = -3)]
    offset: i32,
    #[elicit(default = 0.25)]
    ratio: f32,
    #[elicit(default = "Medium")]
    size: Size,
    #[elicit(default = ["Bug", "docs"])]
    tags: Vec<Tag>,
    #[elicit(default = 5)]
    limit: Option<u16>,
}

#[elicit(rename_all = "camelCase")]
#[derive(Debug, Clone, PartialEq)]
struct Renamed {
    first_name: String,
    #[elicit(rename = "family")]
    last_name: String,
}

#[elicit]
#[derive(Debug, PartialEq)]
struct Nothing {}

// ---- helpers -------------------------------------------------------------------------------------------

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        other => panic!("not an object: {other}"),
    }
}

fn schema<T: ElicitForm>() -> Value {
    Value::Object(T::requested_schema())
}

fn good_order() -> Value {
    json!({
        "name": "Ada",
        "email": "ada@example.com",
        "website": "https://ada.dev",
        "deliver_on": "2025-12-31",
        "deliverAt": "2025-12-31T09:30:00+01:00",
        "gift": true,
        "quantity": 255,
        "boxes": 10,
        "offset": -9007199254740993i64,
        "discount": 1.5,
        "size": "Large",
        "priority": "meh",
        "tags": ["docs", "Bug"],
        "toppings": ["Mushroom"],
        "type": "Small"
    })
}

/// `good_order()` with `changes` applied (`null` removes the key).
fn order_with(changes: Value) -> JsonObject {
    let mut o = object(good_order());
    for (k, v) in object(changes) {
        if v.is_null() {
            o.remove(&k);
        } else {
            o.insert(k, v);
        }
    }
    o
}

fn order_error(changes: Value) -> String {
    match Order::from_content(order_with(changes.clone())) {
        Ok(order) => panic!("{changes} was accepted: {order:?}"),
        Err(e) => e,
    }
}

// ---- schemas -------------------------------------------------------------------------------------------

#[test]
fn schema_of_every_field_kind() {
    assert_eq!(
        schema::<Order>(),
        json!({
            "type": "object",
            "title": "Order",
            "properties": {
                "name": {
                    "type": "string",
                    "title": "Name",
                    "description": "Who the order is for.",
                    "minLength": 2,
                    "maxLength": 10
                },
                "email": {"type": "string", "format": "email"},
                "website": {"type": "string", "format": "uri"},
                "deliver_on": {"type": "string", "format": "date"},
                "deliverAt": {"type": "string", "format": "date-time"},
                "gift": {"type": "boolean", "description": "Gift-wrap it?", "default": false},
                // A type's own limits are in the schema when a JSON number holds them exactly.
                "quantity": {"type": "integer", "minimum": 0, "maximum": 255},
                "boxes": {"type": "integer", "minimum": 1, "maximum": 10},
                "offset": {"type": "integer"},
                "discount": {"type": "number", "minimum": 0, "maximum": 1.5, "default": 1.0},
                "size": {"type": "string", "enum": ["Small", "Medium", "Large"]},
                "priority": {
                    "type": "string",
                    "oneOf": [
                        {"const": "low", "title": "Whenever you get to it"},
                        {"const": "very_high", "title": "Right now"},
                        {"const": "meh", "title": "meh"}
                    ],
                    "default": "low"
                },
                "tags": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 2,
                    "items": {"type": "string", "enum": ["Bug", "Feature", "docs"]}
                },
                "toppings": {
                    "type": "array",
                    "items": {"anyOf": [
                        {"const": "Cheese", "title": "Extra cheese"},
                        {"const": "Mushroom", "title": "Mushrooms"}
                    ]}
                },
                "type": {"type": "string", "enum": ["Small", "Medium", "Large"]}
            },
            "required": ["name", "email", "gift", "quantity", "boxes", "offset", "discount", "size", "priority", "tags"]
        })
    );
}

#[test]
fn properties_keep_field_order() {
    let keys: Vec<String> = match &Order::requested_schema()["properties"] {
        Value::Object(p) => p.keys().cloned().collect(),
        other => panic!("{other}"),
    };
    assert_eq!(
        keys,
        [
            "name",
            "email",
            "website",
            "deliver_on",
            "deliverAt",
            "gift",
            "quantity",
            "boxes",
            "offset",
            "discount",
            "size",
            "priority",
            "tags",
            "toppings",
            "type"
        ]
    );
}

#[test]
fn schema_of_the_design_example() {
    assert_eq!(
        schema::<Confirm>(),
        json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean", "description": "Go ahead with the deployment?"}},
            "required": ["confirm"]
        })
    );
}

#[test]
fn schema_with_defaults_of_every_kind() {
    assert_eq!(
        schema::<Defaults>(),
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "anonymous"},
                "notify": {"type": "boolean", "default": true},
                "offset": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647, "default": -3},
                "ratio": {"type": "number", "default": 0.25},
                "size": {"type": "string", "enum": ["Small", "Medium", "Large"], "default": "Medium"},
                "tags": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["Bug", "Feature", "docs"]},
                    "default": ["Bug", "docs"]
                },
                "limit": {"type": "integer", "minimum": 0, "maximum": 65535, "default": 5}
            },
            "required": ["name", "notify", "offset", "ratio", "size", "tags"]
        })
    );
}

#[test]
fn schema_with_renames_and_without_fields() {
    assert_eq!(
        schema::<Renamed>(),
        json!({
            "type": "object",
            "properties": {"firstName": {"type": "string"}, "family": {"type": "string"}},
            "required": ["firstName", "family"]
        })
    );
    // No `required` at all rather than an empty one.
    assert_eq!(schema::<Nothing>(), json!({"type": "object", "properties": {}}));
}

#[test]
fn enums_are_selects() {
    assert_eq!(Size::CHOICES.iter().map(|c| c.value).collect::<Vec<_>>(), ["Small", "Medium", "Large"]);
    assert_eq!(Priority::from_choice("very_high"), Some(Priority::VeryHigh));
    assert_eq!(Priority::from_choice("VeryHigh"), None);
    assert_eq!(Priority::Unsure.choice(), "meh");
    assert_eq!(Tag::Documentation.choice(), "docs");
    assert_eq!(
        Value::Object(<Priority as FormField>::property(&Default::default())),
        json!({"type": "string", "oneOf": [
            {"const": "low", "title": "Whenever you get to it"},
            {"const": "very_high", "title": "Right now"},
            {"const": "meh", "title": "meh"}
        ]})
    );
    assert_eq!(
        Value::Object(<Vec<Size> as FormField>::property(&Default::default())),
        json!({"type": "array", "items": {"type": "string", "enum": ["Small", "Medium", "Large"]}})
    );
}

/// The spec's shape rules (`PrimitiveSchemaDefinition`): a flat object whose every property is exactly
/// one of the restricted shapes, with only the keys that shape allows.
fn check_restricted(schema: &Value) -> Result<(), String> {
    let o = schema.as_object().ok_or("not an object")?;
    if o.get("type") != Some(&json!("object")) {
        return Err("type is not object".into());
    }
    for key in o.keys() {
        if !["$schema", "type", "title", "properties", "required"].contains(&key.as_str()) {
            return Err(format!("unexpected top-level key {key}"));
        }
    }
    let props = o.get("properties").and_then(Value::as_object).ok_or("no properties")?;
    if let Some(required) = o.get("required") {
        for r in required.as_array().ok_or("required is not an array")? {
            let r = r.as_str().ok_or("required entry is not a string")?;
            if !props.contains_key(r) {
                return Err(format!("required `{r}` is not a property"));
            }
        }
    }
    let strings = |v: &Value| v.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string));
    let titled = |v: &Value| {
        v.as_array().is_some_and(|a| {
            !a.is_empty()
                && a.iter().all(|c| {
                    c.as_object().is_some_and(|c| {
                        c.len() == 2 && c.get("const").is_some_and(Value::is_string) && c["title"].is_string()
                    })
                })
        })
    };
    let count = |v: Option<&Value>| v.is_none_or(Value::is_u64);
    let number = |v: Option<&Value>| v.is_none_or(Value::is_number);
    for (name, p) in props {
        let p = p.as_object().ok_or(format!("{name}: not an object"))?;
        let has = |keys: &[&str]| {
            p.keys().all(|k| {
                ["type", "title", "description", "default"].contains(&k.as_str()) || keys.contains(&k.as_str())
            })
        };
        let default = p.get("default");
        let ok = match p.get("type").and_then(Value::as_str) {
            Some("string") if p.contains_key("enum") => {
                has(&["enum"]) && strings(&p["enum"]) && default.is_none_or(Value::is_string)
            }
            Some("string") if p.contains_key("oneOf") => {
                has(&["oneOf"]) && titled(&p["oneOf"]) && default.is_none_or(Value::is_string)
            }
            Some("string") => {
                has(&["minLength", "maxLength", "format"])
                    && count(p.get("minLength"))
                    && count(p.get("maxLength"))
                    && p.get("format")
                        .is_none_or(|f| ["email", "uri", "date", "date-time"].contains(&f.as_str().unwrap_or("")))
                    && default.is_none_or(Value::is_string)
            }
            Some("number") => {
                has(&["minimum", "maximum"]) && number(p.get("minimum")) && number(p.get("maximum")) && number(default)
            }
            Some("integer") => {
                has(&["minimum", "maximum"])
                    && number(p.get("minimum"))
                    && number(p.get("maximum"))
                    && default.is_none_or(|d| d.is_i64() || d.is_u64())
            }
            Some("boolean") => has(&[]) && default.is_none_or(Value::is_boolean),
            Some("array") => {
                let items = p.get("items").and_then(Value::as_object).ok_or(format!("{name}: no items"))?;
                let untitled = items.len() == 2
                    && items.get("type") == Some(&json!("string"))
                    && items.get("enum").is_some_and(strings);
                let titled_items = items.len() == 1 && items.get("anyOf").is_some_and(titled);
                has(&["items", "minItems", "maxItems"])
                    && (untitled || titled_items)
                    && count(p.get("minItems"))
                    && count(p.get("maxItems"))
                    && default.is_none_or(strings)
            }
            _ => false,
        };
        if !ok {
            return Err(format!("property `{name}` is not a restricted primitive: {}", Value::Object(p.clone())));
        }
    }
    Ok(())
}

#[test]
fn schemas_follow_the_restricted_shape() {
    for (name, s) in [
        ("Order", schema::<Order>()),
        ("Confirm", schema::<Confirm>()),
        ("Defaults", schema::<Defaults>()),
        ("Renamed", schema::<Renamed>()),
        ("Nothing", schema::<Nothing>()),
    ] {
        check_restricted(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // The checker itself rejects what a form must not hold.
    let nested = json!({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}});
    assert!(check_restricted(&nested).is_err());
    let array = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}});
    assert!(check_restricted(&array).is_err());
}

#[test]
fn schema_is_built_once() {
    // Built on first use and cloned after: equal every time, whatever the order of calls.
    let first = Order::requested_schema();
    for _ in 0..3 {
        assert_eq!(Order::requested_schema(), first);
    }
    // Every ask shares the one schema rather than a copy of it.
    let shared = Order::shared_schema();
    assert!(std::sync::Arc::ptr_eq(&shared, &Order::shared_schema()));
    assert_eq!(*shared, first);
}

// ---- validation of answers -----------------------------------------------------------------------------

#[test]
fn accepts_good_content() {
    let order = Order::from_content(object(good_order())).expect("valid");
    assert_eq!(
        order,
        Order {
            name: "Ada".into(),
            email: "ada@example.com".into(),
            website: Some("https://ada.dev".into()),
            deliver_on: Some("2025-12-31".into()),
            deliver_at: Some("2025-12-31T09:30:00+01:00".into()),
            gift: true,
            quantity: 255,
            boxes: 10,
            offset: -9007199254740993,
            discount: 1.5,
            size: Size::Large,
            priority: Priority::Unsure,
            tags: vec![Tag::Documentation, Tag::Bug],
            toppings: Some(vec![Topping::Mushroom]),
            r#type: Some(Size::Small),
        }
    );
}

#[test]
fn optional_fields_may_be_left_out_or_null() {
    let order = Order::from_content(order_with(json!({
        "website": null, "deliver_on": null, "deliverAt": null, "toppings": null, "type": null
    })))
    .expect("valid");
    assert_eq!(
        (order.website, order.deliver_on, order.deliver_at, order.toppings, order.r#type),
        (None, None, None, None, None)
    );
    let mut content = object(good_order());
    content.insert("website".into(), Value::Null);
    assert_eq!(Order::from_content(content).expect("valid").website, None);
}

#[test]
fn extra_keys_are_ignored() {
    let order = Order::from_content(order_with(json!({"unexpected": [1, 2], "Name": "x", "__proto__": {}})));
    assert_eq!(order.expect("valid").name, "Ada");
}

#[test]
fn left_out_fields_take_their_defaults() {
    assert_eq!(
        Defaults::from_content(JsonObject::new()),
        Ok(Defaults {
            name: "anonymous".into(),
            notify: true,
            offset: -3,
            ratio: 0.25,
            size: Size::Medium,
            tags: vec![Tag::Bug, Tag::Documentation],
            limit: Some(5),
        })
    );
    let given = Defaults::from_content(object(json!({"name": "x", "notify": false, "limit": 9, "tags": []})));
    let given = given.expect("valid");
    assert_eq!((given.name.as_str(), given.notify, given.limit, given.tags), ("x", false, Some(9), vec![]));
}

#[test]
fn rejects_each_kind_of_bad_content_naming_the_field() {
    let cases = [
        // wrong type
        (json!({"name": 42}), "field `name`: must be a string, got the number 42"),
        (json!({"gift": "yes"}), "field `gift`: must be true or false, got \"yes\""),
        (json!({"boxes": "3"}), "field `boxes`: must be an integer, got \"3\""),
        (json!({"discount": true}), "field `discount`: must be a number, got true"),
        (
            json!({"tags": "Bug"}),
            "field `tags`: must be a list of choices from \"Bug\", \"Feature\", \"docs\", got \"Bug\"",
        ),
        // out of range
        (json!({"boxes": 11}), "field `boxes`: must be at most 10, got 11"),
        (json!({"boxes": 0}), "field `boxes`: must be at least 1, got 0"),
        (json!({"discount": 1.75}), "field `discount`: must be at most 1.5, got 1.75"),
        (json!({"discount": -0.5}), "field `discount`: must be at least 0, got -0.5"),
        // integer overflow for u8, and a negative for an unsigned
        (json!({"quantity": 256}), "field `quantity`: must be at most 255, got 256"),
        (json!({"quantity": -1}), "field `quantity`: must be at least 0, got -1"),
        (json!({"offset": 9.3e18}), "field `offset`: must be at most 9223372036854775807, got 9.3e+18"),
        // a float for an integer
        (json!({"quantity": 2.5}), "field `quantity`: must be an integer, got 2.5"),
        // too long, too short
        (json!({"name": "Ada Lovelace!"}), "field `name`: must be at most 10 characters, got 13"),
        (json!({"name": "A"}), "field `name`: must be at least 2 characters, got 1"),
        // formats
        (
            json!({"email": "ada.example.com"}),
            "field `email`: must be an email address like name@example.com, got \"ada.example.com\"",
        ),
        (json!({"email": "a@b@c"}), "field `email`: must be an email address like name@example.com, got \"a@b@c\""),
        (
            json!({"website": "ada.dev"}),
            "field `website`: must be a URI with a scheme, like https://example.com, got \"ada.dev\"",
        ),
        (json!({"deliver_on": "2025-02-30"}), "field `deliver_on`: must be a date like 2025-12-31, got \"2025-02-30\""),
        (
            json!({"deliverAt": "tomorrow 9am"}),
            "field `deliverAt`: must be a date and time like 2025-12-31T23:59:00Z, got \"tomorrow 9am\"",
        ),
        // not in the enum (values are wire values, not Rust names or titles)
        (json!({"size": "Huge"}), "field `size`: must be one of \"Small\", \"Medium\", \"Large\", got \"Huge\""),
        (
            json!({"priority": "VeryHigh"}),
            "field `priority`: must be one of \"low\", \"very_high\", \"meh\", got \"VeryHigh\"",
        ),
        (json!({"type": 1}), "field `type`: must be one of \"Small\", \"Medium\", \"Large\", got the number 1"),
        // multi-select membership and counts
        (
            json!({"tags": ["Bug", "Chore"]}),
            "field `tags`: item 1 must be one of \"Bug\", \"Feature\", \"docs\", got \"Chore\"",
        ),
        (json!({"tags": []}), "field `tags`: must have at least 1 choice, got 0"),
        (json!({"tags": ["Bug", "Feature", "docs"]}), "field `tags`: must have at most 2 choices, got 3"),
        (json!({"tags": ["Bug", "Bug"]}), "field `tags`: lists \"Bug\" more than once"),
        (
            json!({"toppings": ["Extra cheese"]}),
            "field `toppings`: item 0 must be one of \"Cheese\", \"Mushroom\", got \"Extra cheese\"",
        ),
        // missing required (and `null` for a required field is missing too)
        (json!({"email": null}), "field `email` is required but missing"),
    ];
    for (changes, expected) in cases {
        assert_eq!(order_error(changes.clone()), expected, "for {changes}");
    }
}

#[test]
fn reports_every_bad_field_at_once() {
    // In field order; fields with a default (`gift`, `discount`, `priority`) are not missing.
    let e = Order::from_content(object(json!({"name": "A", "quantity": 300}))).expect_err("invalid");
    assert_eq!(
        e,
        "field `name`: must be at least 2 characters, got 1; \
         field `email` is required but missing; \
         field `quantity`: must be at most 255, got 300; \
         field `boxes` is required but missing; \
         field `offset` is required but missing; \
         field `size` is required but missing; \
         field `tags` is required but missing"
    );
}

#[test]
fn integral_floats_are_integers() {
    // JSON Schema's `integer` is any number without a fractional part.
    let order = Order::from_content(order_with(json!({"quantity": 3.0, "boxes": 1e0})));
    let order = order.expect("valid");
    assert_eq!((order.quantity, order.boxes), (3, 1));
}

#[test]
fn messages_quote_bounded_values() {
    let long = "x".repeat(10_000);
    let e = order_error(json!({ "email": long }));
    assert!(e.len() < 200, "{e}");
    assert!(e.starts_with("field `email`: must be an email address"), "{e}");
}

#[test]
fn an_empty_form_accepts_anything() {
    assert_eq!(Nothing::from_content(object(json!({"anything": 1}))), Ok(Nothing {}));
}

// ---- the Ask round trip --------------------------------------------------------------------------------

fn request_of<A: Ask>(ask: A) -> Value {
    let mut requests = InputRequests::new();
    ask.requests("confirm", &mut requests);
    assert_eq!(requests.len(), 1);
    let request = requests.remove("confirm").expect("keyed by the ask's key");
    assert!(matches!(request, InputRequest::Elicit(_)));
    serde_json::to_value(&request).expect("serializes")
}

fn answer_with<A: Ask>(result: Value) -> Result<A::Output, String> {
    let mut responses = InputResponses::new();
    responses.insert_value("confirm", &result).unwrap();
    A::answer("confirm", &responses)
}

#[test]
fn ask_sends_a_form_elicitation() {
    assert_eq!(
        request_of(Confirm::elicit("m")),
        json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "m",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"confirm": {"type": "boolean", "description": "Go ahead with the deployment?"}},
                    "required": ["confirm"]
                }
            }
        })
    );
    let order = request_of(Order::elicit(format!("Order for {}?", "Ada")));
    assert_eq!(order["params"]["message"], "Order for Ada?");
    assert_eq!(order["params"]["requestedSchema"], schema::<Order>());
}

type ConfirmAsk = fastmcp::flow::ElicitAsk<Confirm>;

#[test]
fn ask_maps_accept_decline_and_cancel() {
    let accepted = answer_with::<ConfirmAsk>(json!({"action": "accept", "content": {"confirm": true}}));
    assert_eq!(accepted, Ok(Elicitation::Accepted(Confirm { confirm: true })));
    assert_eq!(accepted.ok().and_then(Elicitation::accepted), Some(Confirm { confirm: true }));
    assert_eq!(answer_with::<ConfirmAsk>(json!({"action": "decline"})), Ok(Elicitation::Declined));
    assert_eq!(answer_with::<ConfirmAsk>(json!({"action": "cancel"})), Ok(Elicitation::Cancelled));
    let declined = answer_with::<ConfirmAsk>(json!({"action": "decline"})).expect("valid");
    assert_eq!(declined.accepted(), None);
}

#[test]
fn ask_rejects_an_accepted_answer_that_does_not_fit_the_form() {
    assert_eq!(
        answer_with::<ConfirmAsk>(json!({"action": "accept", "content": {"confirm": "yes"}})),
        Err("input request `confirm`: field `confirm`: must be true or false, got \"yes\"".into())
    );
    assert_eq!(
        answer_with::<ConfirmAsk>(json!({"action": "accept"})),
        Err("input request `confirm`: field `confirm` is required but missing".into())
    );
    let none = InputResponses::new();
    assert!(<ConfirmAsk as Ask>::answer("confirm", &none).is_err());
}
