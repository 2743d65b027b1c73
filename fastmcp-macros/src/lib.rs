use proc_macro::TokenStream;
#[proc_macro_attribute]
pub fn tool(_: TokenStream, item: TokenStream) -> TokenStream { item }
#[proc_macro_attribute]
pub fn prompt(_: TokenStream, item: TokenStream) -> TokenStream { item }
#[proc_macro_attribute]
pub fn resource(_: TokenStream, item: TokenStream) -> TokenStream { item }
