// Shared by the compile-fail programs (include!d): a partition over a host's slices.
#[allow(dead_code)]
fn part<'a>(v: &'a [cuzk::Fr], d: &'a [u64]) -> cuzk::Partition<'a> {
    cuzk::Partition {
        scalar_form: cuzk::ScalarForm::Canonical,
        a: v, b: v, c: v, inputs: v, aux: v,
        a_aux_density: d, b_input_density: d, b_aux_density: d,
        r: None, s: None, priority: 0, tag: 0,
    }
}
