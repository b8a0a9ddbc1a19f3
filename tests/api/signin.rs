//! Web sign-in under attack: parallel guessing, lock-outs from another address, and where
//! the form sends a person afterwards (`next`).

use reqwest::StatusCode;

use crate::common::{TestApp, csrf_of};

const PASSWORD: &str = "a long password";

/// A browser (cookies kept, redirects not followed) whose connections come from `from`, a
/// loopback address: 127.0.0.0/8 is all loopback, so the server sees another client.
fn browser_from(from: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .local_address(std::net::IpAddr::from(from))
        .build()
        .unwrap()
}

/// The sign-in form's CSRF token (its cookie kept by `browser`).
async fn form_token(app: &TestApp, browser: &reqwest::Client) -> String {
    let form = browser
        .get(format!("{}/login", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    csrf_of(&form)
}

async fn post_login(
    app: &TestApp,
    browser: &reqwest::Client,
    csrf: &str,
    username: &str,
    password: &str,
    next: &str,
) -> reqwest::Response {
    browser
        .post(format!("{}/login", app.base))
        .form(&[
            ("username", username),
            ("password", password),
            ("csrf_token", csrf),
            ("next", next),
        ])
        .send()
        .await
        .unwrap()
}

/// Where a `Location` header sends a browser, resolved as a browser resolves it.
fn lands_on(app: &TestApp, location: &str) -> reqwest::Url {
    reqwest::Url::parse(&app.base)
        .unwrap()
        .join(location)
        .unwrap()
}

const HOSTILE_NEXT: &[&str] = &[
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "\t//evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "//evil.example",
    "///evil.example",
    "/ /evil.example",
    "https://evil.example",
    "javascript:alert(1)",
    "/\u{0}/evil.example",
];

#[tokio::test]
async fn after_sign_in_the_browser_never_leaves_the_site_whatever_next_says() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let origin = lands_on(&app, "/");
    for next in HOSTILE_NEXT {
        // Signing in with the hostile `next` in the form.
        let b = browser_from([127, 0, 0, 1]);
        let csrf = form_token(&app, &b).await;
        let r = post_login(&app, &b, &csrf, &alice.username, PASSWORD, next).await;
        if next.contains('\0') {
            // No form field may hold a NUL: refused before anything else, no redirect.
            assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{next:?}");
            assert!(r.headers().get("location").is_none());
            continue;
        }
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "{next:?}");
        let to = lands_on(&app, r.headers()["location"].to_str().unwrap());
        assert_eq!(
            to.origin(),
            origin.origin(),
            "{next:?} sent the browser to {to}"
        );

        // Already signed in, `/login?next=...` redirects at once.
        let query = serde_urlencoded::to_string([("next", next)]).unwrap();
        let r = b
            .get(format!("{}/login?{query}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "{next:?}");
        let to = lands_on(&app, r.headers()["location"].to_str().unwrap());
        assert_eq!(
            to.origin(),
            origin.origin(),
            "{next:?} sent the browser to {to}"
        );
    }
    // The issue's own URL, as typed: `%09` is a tab once the query is decoded.
    let b = app.browser(Some(&alice)).await;
    let r = b
        .get(format!("{}/login?next=/%09/evil.example", app.base))
        .send()
        .await
        .unwrap();
    let to = lands_on(&app, r.headers()["location"].to_str().unwrap());
    assert_eq!(to.origin(), origin.origin(), "sent to {to}");
    // A path on the site is still followed.
    let r = b
        .get(format!("{}/login?next=/users/api", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["location"], "/users/api");
}

/// Posts `n` sign-ins at once with the same form token; their statuses.
async fn parallel_sign_ins(
    app: &TestApp,
    browser: &reqwest::Client,
    username: &str,
    password: &str,
    n: usize,
) -> Vec<StatusCode> {
    let csrf = form_token(app, browser).await;
    let tries = (0..n).map(|_| async {
        post_login(app, browser, &csrf, username, password, "/")
            .await
            .status()
    });
    futures::future::join_all(tries).await
}

#[tokio::test]
async fn sixty_parallel_wrong_passwords_check_no_more_than_five() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let stranger = browser_from([127, 0, 0, 2]);

    let statuses = parallel_sign_ins(&app, &stranger, &alice.username, "guess", 60).await;
    let checked = statuses
        .iter()
        .filter(|s| **s == StatusCode::UNAUTHORIZED)
        .count();
    let refused = statuses
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert!(
        (1..=5).contains(&checked),
        "{checked} of 60 parallel guesses had their password checked"
    );
    assert_eq!(checked + refused, 60, "{statuses:?}");

    // The stranger's address stays locked, even with the right password...
    let r = post_login(
        &app,
        &stranger,
        &form_token(&app, &stranger).await,
        &alice.username,
        PASSWORD,
        "/",
    )
    .await;
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(r.headers().contains_key("retry-after"));
    // ...but the owner, from another address, signs in.
    let owner = browser_from([127, 0, 0, 1]);
    let csrf = form_token(&app, &owner).await;
    let r = post_login(&app, &owner, &csrf, &alice.username, PASSWORD, "/").await;
    assert_eq!(
        r.status(),
        StatusCode::SEE_OTHER,
        "a stranger locked the owner out"
    );
}

#[tokio::test]
async fn one_address_gets_a_bounded_number_of_sign_in_tries_whatever_the_accounts() {
    let app = TestApp::spawn_with(|core| {
        core.with_guess_limits(lectern_core::guard::GuessLimits {
            login_per_address: 8,
            ..Default::default()
        })
    })
    .await;
    for name in ["ann", "bob", "cid", "dee"] {
        app.user(name).await;
    }
    let sprayer = browser_from([127, 0, 0, 3]);
    let mut checked = 0;
    for name in ["ann", "bob", "cid", "dee"] {
        let statuses = parallel_sign_ins(&app, &sprayer, name, "guess", 4).await;
        checked += statuses
            .iter()
            .filter(|s| **s == StatusCode::UNAUTHORIZED)
            .count();
    }
    assert_eq!(checked, 8, "four accounts, four tries each, eight allowed");
    // Another address is not affected.
    let other = browser_from([127, 0, 0, 4]);
    let csrf = form_token(&app, &other).await;
    let r = post_login(&app, &other, &csrf, "ann", PASSWORD, "/").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
}

/// A failed sign-in shows the form again with the username as typed (escaped), so only
/// the password is typed again.
#[tokio::test]
async fn a_failed_sign_in_keeps_the_username() {
    let app = TestApp::spawn().await;
    let alice = app.user("alice").await;
    let b = browser_from([127, 0, 0, 1]);
    let csrf = form_token(&app, &b).await;
    let r = post_login(&app, &b, &csrf, &alice.username, "wrong password", "/").await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let page = r.text().await.unwrap();
    assert!(page.contains("value=\"alice\""), "{page}");
    let csrf = form_token(&app, &b).await;
    let r = post_login(&app, &b, &csrf, "<b>\"x", "wrong password", "/").await;
    let page = r.text().await.unwrap();
    assert!(page.contains("value=\"&lt;b&gt;&quot;x\""), "{page}");
}
