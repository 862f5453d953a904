// `import OpenCoreData` gives Foundation too, as `import CoreData` does on Apple platforms.
//
// It also matters for name lookup: Swift does not let a module's `NSPredicate`,
// `NSSortDescriptor`, `NSExpression`, `NSCompoundPredicate` or `NSComparisonPredicate`
// shadow Foundation's for a file that imports both modules itself (the names are
// ambiguous in type positions such as `let p: NSPredicate`), but it does when the file
// imports OpenCoreData alone and gets Foundation through this re-export. See
// LinuxDifferences.md.
@_exported import Foundation
