"""The functions the workflow's thin scripts call (one per rule family): config checks (:mod:`.config`),
data preparation and its tables (:mod:`.data`), training and aggregation (:mod:`.train`), the WMD baseline
(:mod:`.wmd`), the protocol budget (:mod:`.budget`) and the toy (:mod:`.toy`). The top floor: it may import
every other room of repset; nothing in repset imports it. Submodules are imported on use."""
