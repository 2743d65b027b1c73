//! Straight line: two asks in `let` initialisers; `plan` is carried across both, `audit` runs once.
use fastmcp::prelude::*;
#[allow(non_camel_case_types)]
#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::default::Default
)]
struct deploy;
#[doc(hidden)]
#[allow(dead_code, non_upper_case_globals)]
const __fastmcp_tool_name_deploy: () = ();
const _: () = {
    #[derive(
        ::fastmcp::__private::serde::Deserialize,
        ::fastmcp::__private::schemars::JsonSchema
    )]
    #[serde(crate = "::fastmcp::__private::serde")]
    #[schemars(crate = "::fastmcp::__private::schemars")]
    struct __FastmcpArgs<__F0, __F1> {
        service: __F0,
        replicas: __F1,
    }
    const fn __fastmcp_input<
        'r,
        __T0: ::fastmcp::__private::ToolParam<'r>,
        __T1: ::fastmcp::__private::ToolParam<'r>,
    >() -> ::fastmcp::__private::ToolInput<'r, (__T0, __T1), 2usize> {
        ::fastmcp::__private::ToolInput {
            roles: [
                <__T0 as ::fastmcp::__private::ToolParam<'r>>::ROLE,
                <__T1 as ::fastmcp::__private::ToolParam<'r>>::ROLE,
            ],
            schema: ::fastmcp::__private::input_schema::<
                __FastmcpArgs<
                    <__T0 as ::fastmcp::__private::ToolParam<'r>>::Field,
                    <__T1 as ::fastmcp::__private::ToolParam<'r>>::Field,
                >,
            >,
            values: |__fastmcp_call, __fastmcp_roles| {
                let __FastmcpArgs {
                    service: __fastmcp_arg_0,
                    replicas: __fastmcp_arg_1,
                } = ::fastmcp::__private::parse_arguments::<
                    __FastmcpArgs<
                        <__T0 as ::fastmcp::__private::ToolParam<'r>>::Field,
                        <__T1 as ::fastmcp::__private::ToolParam<'r>>::Field,
                    >,
                >(__fastmcp_call, __fastmcp_roles)?;
                ::core::result::Result::Ok((
                    <__T0 as ::fastmcp::__private::ToolParam<
                        'r,
                    >>::take(__fastmcp_arg_0, __fastmcp_call),
                    <__T1 as ::fastmcp::__private::ToolParam<
                        'r,
                    >>::take(__fastmcp_arg_1, __fastmcp_call),
                ))
            },
        }
    }
    const __FASTMCP_ROLES: [::fastmcp::__private::Role; 2usize] = __fastmcp_input::<
        '_,
        String,
        u32,
    >()
        .roles;
    const _: () = if ::fastmcp::__private::Role::beside_arguments(
        &__FASTMCP_ROLES,
        0usize,
    ) {
        ::core::panic!(
            "`service` can't be a parameter next to `Args<T>`: with `Args<T>` the arguments object is `T`, so make `service` a field of `T`"
        )
    };
    const _: () = if ::fastmcp::__private::Role::beside_arguments(
        &__FASTMCP_ROLES,
        1usize,
    ) {
        ::core::panic!(
            "`replicas` can't be a parameter next to `Args<T>`: with `Args<T>` the arguments object is `T`, so make `replicas` a field of `T`"
        )
    };
    impl deploy {
        #[doc(hidden)]
        async fn __fastmcp_machine(
            service: String,
            replicas: u32,
            __fastmcp_slot: &::fastmcp::__private::Slot,
            __fastmcp_resume: ::core::option::Option<::fastmcp::__private::Resume>,
        ) -> Result<String> {
            let mut __fastmcp_a1 = ::core::option::Option::None;
            let mut __fastmcp_a2 = ::core::option::Option::None;
            let __fastmcp_carry_plan = ::fastmcp::__private::carried();
            let __fastmcp_carry_answer = ::fastmcp::__private::carried();
            let (__fastmcp_step, __fastmcp_locals, mut __fastmcp_responses) = ::fastmcp::__private::resume_parts(
                __fastmcp_resume,
            );
            match __fastmcp_step {
                0 => {
                    let plan = format!("{service} x{replicas}");
                    audit(&plan);
                    {
                        let __fastmcp_ask = Confirm::elicit(format!("Deploy {plan}?"));
                        __fastmcp_a1 = ::fastmcp::__private::witness(&__fastmcp_ask);
                        match ::fastmcp::__private::suspend(
                                __fastmcp_slot,
                                1,
                                "ask1",
                                __fastmcp_ask,
                                [__fastmcp_carry_plan.carry(&plan)],
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
                    let plan = __fastmcp_carried
                        .take(__fastmcp_slot, &__fastmcp_carry_plan)
                        .await;
                    let answer = ::fastmcp::__private::answer(
                            __fastmcp_slot,
                            &__fastmcp_a1,
                            "ask1",
                            &mut __fastmcp_responses,
                        )
                        .await?;
                    {
                        let __fastmcp_ask = Sample::prompt(
                                format!("Release notes for {plan}"),
                            )
                            .max_tokens(200);
                        __fastmcp_a2 = ::fastmcp::__private::witness(&__fastmcp_ask);
                        match ::fastmcp::__private::suspend(
                                __fastmcp_slot,
                                2,
                                "ask2",
                                __fastmcp_ask,
                                [
                                    __fastmcp_carry_plan.carry(&plan),
                                    __fastmcp_carry_answer.carry(&answer),
                                ],
                            )
                            .await
                        {}
                    }
                }
                2 => {
                    let mut __fastmcp_carried = ::fastmcp::__private::restore(
                            __fastmcp_slot,
                            &__fastmcp_locals,
                        )
                        .await;
                    let plan = __fastmcp_carried
                        .take(__fastmcp_slot, &__fastmcp_carry_plan)
                        .await;
                    let answer = __fastmcp_carried
                        .take(__fastmcp_slot, &__fastmcp_carry_answer)
                        .await;
                    let notes = ::fastmcp::__private::answer(
                            __fastmcp_slot,
                            &__fastmcp_a2,
                            "ask2",
                            &mut __fastmcp_responses,
                        )
                        .await?;
                    Ok(format!("{plan}: {} {}", answer.is_accepted(), notes.text()))
                }
                _ => match __fastmcp_slot.unknown_step(__fastmcp_step).await {}
            }
        }
    }
    impl ::fastmcp::__private::ToolHandler for deploy {
        fn definition(&self) -> ::fastmcp::__private::Tool {
            ::fastmcp::__private::tool_definition(
                "deploy",
                ::core::option::Option::None,
                ::core::option::Option::None,
                __fastmcp_input::<'_, String, u32>().input_schema(),
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
                    let (__fastmcp_arg_0, __fastmcp_arg_1) = match __fastmcp_input::<
                        '_,
                        String,
                        u32,
                    >()
                        .values(&__fastmcp_call)
                    {
                        ::core::result::Result::Ok(__fastmcp_ok) => __fastmcp_ok,
                        ::core::result::Result::Err(__fastmcp_err) => {
                            return ::fastmcp::__private::invalid_arguments(
                                "deploy",
                                __fastmcp_err,
                            );
                        }
                    };
                    let __fastmcp_slot = ::fastmcp::__private::Slot::new();
                    let __fastmcp_body = deploy::__fastmcp_machine(
                        __fastmcp_arg_0,
                        __fastmcp_arg_1,
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
            0x5c1ee4e91ead2d2fu64
        }
    }
};
