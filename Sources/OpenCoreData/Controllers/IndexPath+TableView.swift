import Foundation

/// The index path accessors a table or collection view uses. On Apple platforms UIKit and
/// AppKit add them to Foundation's `IndexPath`; Linux has neither, so OpenCoreData adds them
/// for the fetched results controller's index paths.
extension IndexPath {
    /// An index path of a row in a section: `[section, row]`.
    public init(row: Int, section: Int) { self.init(indexes: [section, row]) }
    /// An index path of an item in a section: `[section, item]`.
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    /// The section (the first index).
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }
    /// The row within the section (the second index).
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
    /// The item within the section (the second index).
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
