//! Work that can wait starts once the informers have their first lists in.

use super::*;

const PATH: &str = "/api/v1/namespaces/ns/configmaps";

fn flag(rig: &Rig) -> Rc<Cell<bool>> {
    let fired = Rc::new(Cell::new(false));
    let set = fired.clone();
    rig.kube.when_settled(move || set.set(true));
    fired
}

#[test]
fn waits_while_an_informer_has_not_listed_and_goes_two_frames_after_it_has() {
    let mut rig = rig();
    let _feed = expect_list_and_watch(&rig.server, PATH, "10", vec![config_map("a", "5")]);
    let _watch = rig.kube.subscribe("configmaps", PATH).frames(|_, _| {});
    assert!(
        !rig.kube.informers_settled(),
        "an informer that has not listed yet"
    );
    let fired = flag(&rig);
    // Frames while the informer's task has not run: nothing, and it asks again.
    for _ in 0..3 {
        assert_eq!(rig.frame_only(), 1);
        assert!(!fired.get(), "went before the list was in");
    }
    // The list comes in; the first settled frame is not enough, the second is.
    rig.run();
    assert!(rig.kube.informers_settled());
    // (the view asked for a frame too, for its first batch)
    rig.frame_only();
    assert!(!fired.get(), "went after one settled frame");
    rig.frame();
    assert!(fired.get(), "did not go after two settled frames");
    assert_eq!(rig.frame_only(), 0, "asked for frames after it went");
}

#[test]
fn an_informer_whose_list_is_refused_does_not_hold_it_back() {
    let mut rig = rig();
    rig.server
        .expect_get(PATH)
        .reply(Reply::status(403, "Forbidden", "configmaps is forbidden"));
    let _watch = rig.kube.subscribe("configmaps", PATH).frames(|_, _| {});
    let fired = flag(&rig);
    rig.frame();
    rig.frame();
    assert!(fired.get(), "a refused list (backing off) held it back");
}

#[test]
fn with_no_informer_it_goes_at_the_second_frame() {
    let mut rig = rig();
    let fired = flag(&rig);
    rig.frame();
    assert!(!fired.get());
    rig.frame();
    assert!(fired.get());
}
