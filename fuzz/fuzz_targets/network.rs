//! Random bytes as a KataGo network file, binary, text and gzip-compressed: the reader never panics, and
//! whatever it does not take is one error naming a place (libFuzzer's memory limit catches any allocation
//! the bytes could not back).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tesuji_nn::model::{Encoding, Model, ModelError};

fuzz_target!(|bytes: &[u8]| {
    for encoding in [Encoding::Binary, Encoding::Text] {
        match Model::parse(bytes, encoding) {
            Ok(model) => assert!((8..=17).contains(&model.version)),
            Err(ModelError::Format { layer, problem, .. }) => {
                assert!(!layer.is_empty() && !problem.is_empty())
            }
            Err(ModelError::Version(v)) => assert!(!(8..=17).contains(&v)),
            Err(e) => panic!("parse gave {e}"),
        }
        let _ = Model::from_gzip(bytes, encoding);
    }
});
