pragma circom 2.0.0;

// Several public inputs and outputs, with the corner cases the mapping must get right:
// - c (public input) appears only in C: absent from A and B (b_input bit 0);
// - w (private) appears only in C: an aux variable absent from A and B;
// - y (private) appears only in B: an aux variable absent from A;
// - z (public input) is zero in the test input; so is the private signal v.
template Multi() {
    signal input a;
    signal input b;
    signal input c;
    signal input z;
    signal input x;
    signal input y;
    signal input w;
    signal input v;
    signal output o1;
    signal output o2;
    signal output o3;
    signal t;
    signal u;

    t <== x * y;
    o1 <== t * a + c;
    o2 <== x * x + w;
    u <== (a + b + z) * y;
    o3 <== (u + v) * (z + 3) + 5;
}

component main {public [a, b, c, z]} = Multi();
