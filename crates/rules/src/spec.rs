//! Presets and spec strings: `PRESET[:KEY=VALUE,...]`. (Being written.)
