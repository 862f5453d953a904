import Foundation

/// Finds the Swift class of an entity's objects, and the entity of a class.
///
/// Core Data looks classes up by name in the Objective-C runtime. Linux has none, but
/// Swift's runtime finds a class by its module-qualified name, so a model that says
/// `representedClassName="Trail"` is tried as `Trail` and as `<Module>.Trail` for the
/// modules that might hold it: the executable's, `main`, and those of every managed
/// object class the program has used.
enum ManagedObjectClasses {
    private static let lock = NSLock()
    /// Not checked for overlapping access at run time (read at every fault made): every
    /// access holds `lock`.
    @exclusivity(unchecked) private static var knownModules: [String] = []
    /// Classes already noted, so inserting many objects costs one lookup each.
    private static var notedClasses: Set<ObjectIdentifier> = []
    /// Models used by coordinators, for `NSManagedObject.entity()`.
    private static var models: [WeakModel] = []

    private struct WeakModel { weak var model: NSManagedObjectModel? }
    private static var entitiesByClass: [ObjectIdentifier: CachedEntity] = [:]
    private struct CachedEntity {
        weak var model: NSManagedObjectModel?
        /// A handle rather than a weak reference, which would slow every retain of the
        /// entity (``TargetHandle``).
        let entityHandle: TargetHandle<NSEntityDescription>?
        var entity: NSEntityDescription? { entityHandle?.target }
    }

    /// The unqualified class name, e.g. `Trail` for `main.Trail`.
    static func className(of type: AnyClass) -> String {
        String(describing: type)
    }

    /// Remembers `model` for ``entityInLoadedModels(for:)``.
    static func noteModel(_ model: NSManagedObjectModel) {
        lock.lock(); defer { lock.unlock() }
        models.removeAll { $0.model == nil || $0.model === model }
        models.append(WeakModel(model: model))
    }

    /// Remembers the module of a class the program uses, so names in the model resolve there.
    static func noteClass(_ type: AnyClass) {
        lock.lock(); defer { lock.unlock() }
        guard notedClasses.insert(ObjectIdentifier(type)).inserted else { return }
        let qualified = String(reflecting: type)
        guard let dot = qualified.firstIndex(of: ".") else { return }
        let module = String(qualified[..<dot])
        if !knownModules.contains(module) { knownModules.append(module) }
    }

    /// The class to instantiate for objects of `entity`: the class the model names, else
    /// `NSManagedObject` (not the parent entity's class), with Core Data's warning on
    /// standard error the first time.
    ///
    /// The answer is kept on the entity (not in a table keyed by its address, which a later
    /// entity can reuse once this one is freed). The lock makes that write safe when
    /// contexts on several queues materialize objects at once. An answer no module noted
    /// later can change (a class found, or a plain `NSManagedObject` entity) is published
    /// in ``NSEntityDescription/finalObjectClass`` too, so that every later object of the
    /// entity finds its class without the lock.
    static func objectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        let final = entity.finalObjectClass.load()
        // Class metadata is never freed, so its address stands for the class for good.
        if final != 0 { return unsafeBitCast(final, to: NSManagedObject.Type.self) }
        lock.lock()
        if let cached = entity.cachedObjectClass, cached.type != NSManagedObject.self || cached.modulesKnown == knownModules.count {
            lock.unlock()
            return cached.type
        }
        let modulesKnown = knownModules.count
        lock.unlock()
        let found = resolve(entity.managedObjectClassName)
        let resolved = found ?? NSManagedObject.self
        lock.lock()
        entity.cachedObjectClass = (resolved, modulesKnown)
        // A class found stays the answer (`cachedObjectClass` above says so too); a name
        // not found may be found in a module noted later, unless it names no class at all.
        if found != nil || entity.managedObjectClassName == "NSManagedObject" {
            entity.finalObjectClass.store(unsafeBitCast(resolved, to: Int.self))
        }
        // An entity whose class Xcode generates ("Class Definition") has its class on Apple
        // platforms; without the generator there is nothing to warn the program about.
        let generated = entity.codeGenerationType == "class"
        let warn = found == nil && !generated && !entity.warnedMissingClass && entity.managedObjectClassName != "NSManagedObject"
        if warn { entity.warnedMissingClass = true }
        lock.unlock()
        if warn {
            // Core Data's warning, word for word (two spaces after the first sentence), as
            // quoted in novastone-media/MQTT-Client-Framework#102 and prisma-ai/Sworm#12.
            let message = "CoreData: warning: Unable to load class named '\(entity.managedObjectClassName ?? "")' for entity '\(entity.name ?? "")'.  Class not found, using default NSManagedObject instead.\n"
            FileHandle.standardError.write(Data(message.utf8))
        }
        return resolved
    }

    /// The entity in `model` whose class is `type` (by name), if any.
    static func entity(for type: NSManagedObject.Type, in model: NSManagedObjectModel) -> NSEntityDescription? {
        let key = ObjectIdentifier(type)
        lock.lock()
        // Remembered per class for a model that can no longer change (inserting many
        // objects of one class asks every time).
        if let cached = entitiesByClass[key], cached.model === model, !model.isEditable {
            lock.unlock()
            return cached.entity
        }
        lock.unlock()
        noteClass(type)
        let name = className(of: type)
        let qualified = String(reflecting: type)
        let found = model.entities.first { entity in
            guard let className = entity.managedObjectClassName else { return false }
            let bare = className.hasPrefix(".") ? String(className.dropFirst()) : className
            return bare == qualified || bare == name || bare.split(separator: ".").last.map(String.init) == name && bare.contains(".")
        }
        if !model.isEditable {
            lock.lock()
            entitiesByClass[key] = CachedEntity(model: model, entityHandle: found?.handle)
            lock.unlock()
        }
        return found
    }

    /// The entity of `type` in the models coordinators have used, newest first.
    static func entityInLoadedModels(for type: NSManagedObject.Type) -> NSEntityDescription? {
        lock.lock()
        let loaded = models.compactMap(\.model).reversed()
        lock.unlock()
        for model in loaded {
            if let entity = entity(for: type, in: model) { return entity }
        }
        return nil
    }

    /// Looks a class name up in the Swift runtime, trying the likely modules.
    private static func resolve(_ name: String?) -> NSManagedObject.Type? {
        guard var name, !name.isEmpty, name != "NSManagedObject" else { return nil }
        if name.hasPrefix(".") { name.removeFirst() }
        if let type = _typeByName(name) as? NSManagedObject.Type { return type }
        lock.lock()
        var modules = knownModules
        lock.unlock()
        if let executable = CommandLine.arguments.first {
            let base = URL(fileURLWithPath: executable).deletingPathExtension().lastPathComponent
            modules.append(moduleName(fromFileName: base))
        }
        modules.append("main")
        let bare = name.split(separator: ".").last.map(String.init) ?? name
        for module in modules {
            if let type = _typeByName("\(module).\(bare)") as? NSManagedObject.Type { return type }
        }
        return nil
    }

    /// The module name Swift derives from a file name: characters outside identifiers become `_`.
    private static func moduleName(fromFileName name: String) -> String {
        var result = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        if let first = result.first, first.isNumber { result = "_" + result }
        return result
    }
}
