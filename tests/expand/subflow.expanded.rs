//! A sub-flow (`#[elicit] async fn`) and a tool that awaits it: the sub-flow's body is lowered like a
//! handler's; the caller's point is lowered like any ask (the runtime tells the two apart by type).
use fastmcp::prelude::*;
const _: () = {
    const _: () = {
        let _: fn() = ::fastmcp::__private::subflow_param::<String>;
    };
};
/// Ask twice before doing something dangerous.
fn double_check(
    what: String,
) -> ::fastmcp::__private::SubFlowCall<__FastmcpFlow_double_check> {
    ::fastmcp::__private::SubFlowCall::new(__FastmcpFlow_double_check { what })
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
#[derive(
    ::fastmcp::__private::serde::Serialize,
    ::fastmcp::__private::serde::Deserialize
)]
#[serde(crate = "::fastmcp::__private::serde")]
struct __FastmcpFlow_double_check {
    what: String,
}
const _: () = {
    impl __FastmcpFlow_double_check {
        #[doc(hidden)]
        async fn __fastmcp_machine(
            what: String,
            __fastmcp_slot: &::fastmcp::__private::Slot,
            __fastmcp_resume: ::core::option::Option<::fastmcp::__private::Resume>,
        ) -> Result<bool> {
            let mut __fastmcp_a1 = ::core::option::Option::None;
            let mut __fastmcp_a2 = ::core::option::Option::None;
            let (__fastmcp_step, _, mut __fastmcp_responses) = ::fastmcp::__private::resume_parts(
                __fastmcp_resume,
            );
            match __fastmcp_step {
                0 => {
                    let __fastmcp_ask = Confirm::elicit(format!("Really {what}?"));
                    __fastmcp_a1 = ::fastmcp::__private::witness(&__fastmcp_ask);
                    match ::fastmcp::__private::suspend(
                            __fastmcp_slot,
                            1,
                            "ask1",
                            __fastmcp_ask,
                            [],
                        )
                        .await
                    {}
                }
                1 => {
                    let first = ::fastmcp::__private::answer(
                            __fastmcp_slot,
                            &__fastmcp_a1,
                            "ask1",
                            &mut __fastmcp_responses,
                        )
                        .await?;
                    if !first.accepted().is_some_and(|c| c.confirm) {
                        return Ok(false);
                    }
                    {
                        let __fastmcp_ask = Confirm::elicit(
                            format!("Really, really {what}?"),
                        );
                        __fastmcp_a2 = ::fastmcp::__private::witness(&__fastmcp_ask);
                        match ::fastmcp::__private::suspend(
                                __fastmcp_slot,
                                2,
                                "ask2",
                                __fastmcp_ask,
                                [],
                            )
                            .await
                        {}
                    }
                }
                2 => {
                    let second = ::fastmcp::__private::answer(
                            __fastmcp_slot,
                            &__fastmcp_a2,
                            "ask2",
                            &mut __fastmcp_responses,
                        )
                        .await?;
                    Ok(second.accepted().is_some_and(|c| c.confirm))
                }
                _ => match __fastmcp_slot.unknown_step(__fastmcp_step).await {}
            }
        }
    }
    impl ::fastmcp::__private::SubFlow for __FastmcpFlow_double_check {
        type Output = Result<bool>;
        fn fingerprint() -> u64 {
            0x23b243f38dac0e82u64
        }
        fn machine<'s>(
            self,
            __fastmcp_slot: &'s ::fastmcp::__private::Slot,
            __fastmcp_resume: ::core::option::Option<::fastmcp::__private::Resume>,
        ) -> impl ::core::future::Future<
            Output = Self::Output,
        > + ::core::marker::Send + 's {
            let Self { what } = self;
            Self::__fastmcp_machine(what, __fastmcp_slot, __fastmcp_resume)
        }
    }
};
#[allow(non_camel_case_types)]
#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::default::Default
)]
struct wipe;
#[doc(hidden)]
#[allow(dead_code, non_upper_case_globals)]
const __fastmcp_tool_name_wipe: () = ();
const _: () = {
    #[derive(
        ::fastmcp::__private::serde::Deserialize,
        ::fastmcp::__private::schemars::JsonSchema
    )]
    #[serde(crate = "::fastmcp::__private::serde")]
    #[schemars(crate = "::fastmcp::__private::schemars")]
    struct __FastmcpArgs<__F0> {
        disk: __F0,
    }
    const fn __fastmcp_input<'r, __T0: ::fastmcp::__private::ToolParam<'r>>() -> ::fastmcp::__private::ToolInput<
        'r,
        (__T0,),
        1usize,
    > {
        ::fastmcp::__private::ToolInput {
            roles: [<__T0 as ::fastmcp::__private::ToolParam<'r>>::ROLE],
            schema: ::fastmcp::__private::input_schema::<
                __FastmcpArgs<<__T0 as ::fastmcp::__private::ToolParam<'r>>::Field>,
            >,
            values: |__fastmcp_call, __fastmcp_roles| {
                let __FastmcpArgs { disk: __fastmcp_arg_0 } = ::fastmcp::__private::parse_arguments::<
                    __FastmcpArgs<<__T0 as ::fastmcp::__private::ToolParam<'r>>::Field>,
                >(__fastmcp_call, __fastmcp_roles)?;
                ::core::result::Result::Ok((
                    <__T0 as ::fastmcp::__private::ToolParam<
                        'r,
                    >>::take(__fastmcp_arg_0, __fastmcp_call),
                ))
            },
        }
    }
    const __FASTMCP_ROLES: [::fastmcp::__private::Role; 1usize] = __fastmcp_input::<
        '_,
        String,
    >()
        .roles;
    impl wipe {
        #[doc(hidden)]
        async fn __fastmcp_machine(
            disk: String,
            __fastmcp_slot: &::fastmcp::__private::Slot,
            __fastmcp_resume: ::core::option::Option<::fastmcp::__private::Resume>,
        ) -> Result<String> {
            let mut __fastmcp_a1 = ::core::option::Option::None;
            let __fastmcp_carry_label = ::fastmcp::__private::carried();
            let (__fastmcp_step, __fastmcp_locals, mut __fastmcp_responses) = ::fastmcp::__private::resume_parts(
                __fastmcp_resume,
            );
            match __fastmcp_step {
                0 => {
                    let label = format!("wipe {disk}");
                    {
                        let __fastmcp_ask = double_check(label.clone());
                        __fastmcp_a1 = ::fastmcp::__private::witness(&__fastmcp_ask);
                        match ::fastmcp::__private::suspend(
                                __fastmcp_slot,
                                1,
                                "ask1",
                                __fastmcp_ask,
                                [__fastmcp_carry_label.carry(&label)],
                            )
                            .await
                        {}
                    }
                }
                1 => {
                    let mut __fastmcp_carried = ::fastmcp::__private::restore(
                            __fastmcp_slot,
                            &__fastmcp_locals,
                        )
                        .await;
                    let label = __fastmcp_carried
                        .take(__fastmcp_slot, &__fastmcp_carry_label)
                        .await;
                    let ok = ::fastmcp::__private::answer(
                            __fastmcp_slot,
                            &__fastmcp_a1,
                            "ask1",
                            &mut __fastmcp_responses,
                        )
                        .await??;
                    Ok(
                        if ok {
                            format!("{label}: done")
                        } else {
                            format!("{label}: kept")
                        },
                    )
                }
                _ => match __fastmcp_slot.unknown_step(__fastmcp_step).await {}
            }
        }
    }
    impl ::fastmcp::__private::ToolHandler for wipe {
        fn definition(&self) -> ::fastmcp::__private::Tool {
            ::fastmcp::__private::tool_definition(
                "wipe",
                ::core::option::Option::None,
                ::core::option::Option::None,
                __fastmcp_input::<'_, String>().input_schema(),
                <Result<
                    String,
                > as ::fastmcp::__private::IntoToolResult>::output_schema(),
                ::core::option::Option::None,
            )
        }
        fn call(
            &self,
            mut __fastmcp_call: ::fastmcp::__private::ToolCall,
        ) -> ::fastmcp::__private::BoxFuture<
            ::fastmcp::__private::HandlerResult<::fastmcp::__private::CallToolResult>,
        > {
            ::std::boxed::Box::pin(async move {
                let mut __fastmcp_resume = __fastmcp_call.take_resume();
                loop {
                    let (__fastmcp_arg_0,) = match __fastmcp_input::<'_, String>()
                        .values(&__fastmcp_call)
                    {
                        ::core::result::Result::Ok(__fastmcp_ok) => __fastmcp_ok,
                        ::core::result::Result::Err(__fastmcp_err) => {
                            return ::fastmcp::__private::invalid_arguments(
                                "wipe",
                                __fastmcp_err,
                            );
                        }
                    };
                    let __fastmcp_slot = ::fastmcp::__private::Slot::new();
                    let __fastmcp_body = wipe::__fastmcp_machine(
                        __fastmcp_arg_0,
                        &__fastmcp_slot,
                        __fastmcp_resume,
                    );
                    match ::fastmcp::__private::drive(&__fastmcp_slot, __fastmcp_body)
                        .await?
                    {
                        ::fastmcp::__private::Pass::Complete(__fastmcp_out) => {
                            break ::core::result::Result::Ok(
                                ::fastmcp::__private::Step::Complete(
                                    <Result<
                                        String,
                                    > as ::fastmcp::__private::IntoToolResult>::into_tool_result(
                                        __fastmcp_out,
                                    ),
                                ),
                            );
                        }
                        ::fastmcp::__private::Pass::Suspend(__fastmcp_suspension) => {
                            break ::core::result::Result::Ok(
                                ::fastmcp::__private::Step::Suspend(__fastmcp_suspension),
                            );
                        }
                        ::fastmcp::__private::Pass::Again(__fastmcp_again) => {
                            __fastmcp_resume = ::core::option::Option::Some(
                                __fastmcp_again,
                            );
                        }
                    }
                }
            })
        }
        fn fingerprint(&self) -> u64 {
            0xcb69abfd91a9f2abu64
        }
    }
};
