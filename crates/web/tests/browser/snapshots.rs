//! Saved states in this origin's Cache Storage (`Snapshots::Browser`):
//! read back as saved, and held within a size, the least recently saved
//! going first and the one just saved never.

use super::*;
use kubeglass_web::Snapshots;

#[wasm_bindgen_test]
async fn the_browsers_saved_states_stay_within_their_bound_the_oldest_going_first() {
    let s = Snapshots::Browser;
    s.forget().await.expect("an empty cache");
    assert_eq!(s.load("t.a").await, Ok(None));
    let text = |c: char| c.to_string().repeat(100);
    // Three of 100 bytes within 250: the third pushes the first out.
    for key in ["t.a", "t.b"] {
        s.save_within(key, &text('x'), 250).await.expect("kept");
        // Saved a little apart, so their times order them.
        WebClock.sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(s.load("t.a").await, Ok(Some(text('x'))));
    s.save_within("t.c", &text('y'), 250).await.expect("kept");
    assert_eq!(
        s.load("t.a").await,
        Ok(None),
        "the least recently saved went"
    );
    assert_eq!(s.load("t.b").await, Ok(Some(text('x'))));
    assert_eq!(s.load("t.c").await, Ok(Some(text('y'))));
    // Saved again, b is the newest: d pushes c out, not b.
    s.save_within("t.b", &text('z'), 250).await.expect("kept");
    WebClock.sleep(Duration::from_millis(5)).await;
    s.save_within("t.d", &text('w'), 250).await.expect("kept");
    assert_eq!(s.load("t.c").await, Ok(None));
    assert_eq!(s.load("t.b").await, Ok(Some(text('z'))));
    // One larger than the bound is still kept: it is the one just saved.
    s.save_within("t.e", &"e".repeat(400), 250)
        .await
        .expect("kept");
    assert_eq!(s.load("t.e").await, Ok(Some("e".repeat(400))));
    assert_eq!(s.load("t.b").await, Ok(None));
    assert_eq!(s.load("t.d").await, Ok(None));
    s.forget().await.expect("forgotten");
    assert_eq!(s.load("t.e").await, Ok(None));
}
