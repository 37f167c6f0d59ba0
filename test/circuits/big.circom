pragma circom 2.0.0;

// At least 2^16 constraints (65,600 multiplications plus 64 bit checks): a chain
// s[i] = s[i-1]·x + i with x private, so B holds a single variable, and the bits of the
// public input.
template Big(n) {
    signal input x;
    signal input p;
    signal output out;
    signal s[n];
    signal bits[64];
    var acc = 0;
    for (var i = 0; i < 64; i++) {
        bits[i] <-- (p >> i) & 1;
        bits[i] * (bits[i] - 1) === 0;
        acc += bits[i] * (1 << i);
    }
    acc === p;
    s[0] <== x * x;
    for (var i = 1; i < n; i++) {
        s[i] <== s[i - 1] * x + i;
    }
    out <== s[n - 1] + p;
}

component main {public [p]} = Big(65600);
